/** Types of scripts/ensure-chromium.mjs (imported by playwright.config.ts and its test). */
export declare const DEFAULT_CHROMIUM: string;
export declare const CHROMIUM_OVERRIDES: readonly string[];
export declare function chromiumChoice(env?: Readonly<Record<string, string | undefined>>): { path: string; override: string | null };
export declare function chromiumExecutable(env?: Readonly<Record<string, string | undefined>>): string;
export declare function ensureChromium(options?: {
  env?: Readonly<Record<string, string | undefined>>;
  uid?: number | undefined;
  io?: { out: (line: string) => void; err: (line: string) => void };
}): 0 | 1;
