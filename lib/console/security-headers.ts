/**
 * The console's security headers (docs/console.md). Pure builders, used by
 * `proxy.ts` (per-request CSP with a fresh nonce, pages and route handlers)
 * and `next.config.mjs` (the static headers on every response: pages, route
 * handlers and static assets).
 *
 * Pages: scripts only from this origin and only when they carry the
 * request's nonce (`'strict-dynamic'` lets those load Next's and Mermaid's
 * chunks); no `'unsafe-inline'` and, in production, no `'unsafe-eval'` for
 * scripts. Styles allow `'unsafe-inline'` because Mermaid writes a `<style>`
 * element into every SVG it renders and React renders `style` attributes; no
 * nonce goes into `style-src` (a nonce there would switch `'unsafe-inline'`
 * off). Images may be `data:`/`blob:` (Mermaid, the favicon). Nothing may
 * frame the console (`frame-ancestors 'none'`, and `X-Frame-Options: DENY`
 * for older browsers); forms post only to this origin (hosted mode: GitHub's
 * OAuth authorize page too).
 * API routes answer JSON: `default-src 'none'` (nothing in a response may
 * load or run anything).
 */

export interface CspOptions {
  /** The request's nonce (base64, fresh per request). */
  nonce: string;
  /** Next's development server needs `'unsafe-eval'` (React's debugging); production never gets it. */
  dev?: boolean;
  /** Hosted mode signs in through GitHub OAuth. */
  hosted?: boolean;
}

/** A nonce value: base64 of 16 random bytes (what the CSP `nonce-` source accepts). */
export function isNonce(value: string): boolean {
  return /^[A-Za-z0-9+/]{16,}={0,2}$/.test(value);
}

function join(directives: ReadonlyArray<readonly [string, ...string[]]>): string {
  return directives.map((d) => d.join(' ')).join('; ');
}

/** The Content-Security-Policy of an HTML page rendered with `nonce`. */
export function pageCsp(o: CspOptions): string {
  if (!isNonce(o.nonce)) throw new Error('a CSP nonce must be base64 of at least 12 random bytes');
  const script: [string, ...string[]] = ['script-src', `'nonce-${o.nonce}'`, `'strict-dynamic'`, `'self'`];
  if (o.dev === true) script.push(`'unsafe-eval'`);
  return join([
    ['default-src', `'self'`],
    script,
    ['style-src', `'self'`, `'unsafe-inline'`],
    ['img-src', `'self'`, 'data:', 'blob:'],
    ['font-src', `'self'`, 'data:'],
    ['connect-src', `'self'`],
    ['object-src', `'none'`],
    ['base-uri', `'self'`],
    ['form-action', `'self'`, ...(o.hosted === true ? ['https://github.com'] : [])],
    ['frame-ancestors', `'none'`],
    ['frame-src', `'none'`],
    ['worker-src', `'self'`, 'blob:'],
  ]);
}

/** The Content-Security-Policy of an API (JSON) response. */
export function apiCsp(): string {
  return join([
    ['default-src', `'none'`],
    ['frame-ancestors', `'none'`],
    ['base-uri', `'none'`],
    ['form-action', `'none'`],
  ]);
}

/**
 * Whether a request path is answered by a route handler (JSON, or the
 * Prometheus text of `/metrics`) rather than a page. next-auth's own routes
 * may answer HTML, so they get the page policy.
 */
export function isApiPath(pathname: string): boolean {
  if (pathname === '/metrics') return true;
  return (pathname === '/api' || pathname.startsWith('/api/')) && !pathname.startsWith('/api/auth/');
}

/** The headers every response carries, whatever answers it (next.config.mjs `headers()`). */
export const STATIC_SECURITY_HEADERS: ReadonlyArray<{ key: string; value: string }> = [
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'same-origin' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=(), payment=(), usb=()' },
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
];
