/**
 * Next.js Proxy (the Next 16 successor of `middleware.ts`), run before every
 * page and API route: a fresh CSP nonce per request (issue 14 §5; builders
 * and reasons in lib/console/security-headers.ts; the static headers are
 * next.config.mjs's).
 * Next reads the nonce from the request's Content-Security-Policy header and
 * puts it on its own scripts, so pages render with `script-src 'nonce-…'
 * 'strict-dynamic'` and no `'unsafe-inline'`. Every page is dynamically
 * rendered (app/layout.tsx), which a per-request nonce needs.
 */
import { NextResponse, type NextRequest } from 'next/server.js';
import { readConfig } from './lib/console/config.ts';
import { PATH_HEADER } from './lib/console/not-found.ts';
import { apiCsp, isApiPath, pageCsp } from './lib/console/security-headers.ts';

function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

function hosted(): boolean {
  try {
    return readConfig()?.mode === 'hosted';
  } catch {
    return false;
  }
}

export function proxy(request: NextRequest): NextResponse {
  const api = isApiPath(request.nextUrl.pathname);
  const nonce = newNonce();
  const csp = api ? apiCsp() : pageCsp({ nonce, dev: process.env.NODE_ENV === 'development', hosted: hosted() });
  const requestHeaders = new Headers(request.headers);
  if (!api) {
    requestHeaders.set('x-nonce', nonce);
    requestHeaders.set('Content-Security-Policy', csp);
    // The 404 page names what was not found from the path (app/not-found.tsx).
    requestHeaders.set(PATH_HEADER, `${request.nextUrl.pathname}${request.nextUrl.search}`);
  }
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('Content-Security-Policy', csp);
  // X-Frame-Options, nosniff, Referrer-Policy …: next.config.mjs `headers()` sets them on every path
  // (STATIC_SECURITY_HEADERS); setting them here too could send a header twice.
  return response;
}

export const config = {
  // Everything but the immutable build assets (next.config.mjs gives those the static headers).
  matcher: ['/((?!_next/static|_next/image).*)'],
};
