/** Types of next.config.mjs for the tests that read it (lib/console/security-headers.test.ts). */
export declare const SECURITY_HEADERS: Array<{ key: string; value: string }>;
declare const config: {
  headers(): Promise<Array<{ source: string; headers: Array<{ key: string; value: string }> }>>;
  [option: string]: unknown;
};
export default config;
