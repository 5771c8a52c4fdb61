/** Types of scripts/check-cycles.mjs (run by `npm run lint`; imported by its test). */
export declare const SOURCE_DIRS: readonly string[];
export declare function importSpecifiers(text: string): string[];
export declare function moduleGraph(root: string, dirs?: readonly string[]): Map<string, string[]>;
export declare function circularComponents(graph: ReadonlyMap<string, readonly string[]>): string[][];
export declare function shortestCircle(graph: ReadonlyMap<string, readonly string[]>, members: readonly string[]): string[];
export declare function findCircles(root: string, dirs?: readonly string[]): { files: string[]; chain: string[] }[];
