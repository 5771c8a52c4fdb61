/**
 * The console's security headers (issue 14 §5): the CSP builders, the static
 * headers of next.config.mjs, and proxy.ts setting them on a page and an API
 * route (a fresh nonce each request, handed to Next on the request).
 */
import { NextRequest } from 'next/server.js';
import { describe, expect, it } from 'vitest';
import nextConfig, { SECURITY_HEADERS } from '../../next.config.mjs';
import { proxy } from '../../proxy.ts';
import { STATIC_SECURITY_HEADERS, apiCsp, isApiPath, isNonce, pageCsp } from './security-headers.ts';

function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split('; ').map((d) => {
    const [name, ...values] = d.split(' ');
    return [name!, values];
  }));
}

const NONCE = 'q2bN5kH1u8zP0aV3xY7wLg==';

describe('Content-Security-Policy', () => {
  it('a page runs only scripts carrying its nonce (strict-dynamic), never inline or eval in production, and cannot be framed', () => {
    const d = directives(pageCsp({ nonce: NONCE }));
    expect(d.get('script-src')).toEqual([`'nonce-${NONCE}'`, `'strict-dynamic'`, `'self'`]);
    expect(d.get('script-src')).not.toContain(`'unsafe-inline'`);
    expect(d.get('script-src')).not.toContain(`'unsafe-eval'`);
    expect(d.get('frame-ancestors')).toEqual([`'none'`]);
    expect(d.get('object-src')).toEqual([`'none'`]);
    expect(d.get('base-uri')).toEqual([`'self'`]);
    expect(d.get('form-action')).toEqual([`'self'`]);
    expect(d.get('connect-src')).toEqual([`'self'`]);
    // Mermaid writes <style> into each SVG: inline styles stay allowed, with no nonce that would disable them.
    expect(d.get('style-src')).toEqual([`'self'`, `'unsafe-inline'`]);
    expect(d.get('img-src')).toEqual([`'self'`, 'data:', 'blob:']);
  });

  it('development adds only unsafe-eval to scripts; hosted mode lets the sign-in form reach GitHub', () => {
    expect(directives(pageCsp({ nonce: NONCE, dev: true })).get('script-src')).toContain(`'unsafe-eval'`);
    expect(directives(pageCsp({ nonce: NONCE, hosted: true })).get('form-action')).toEqual([`'self'`, 'https://github.com']);
  });

  it('refuses a nonce that is not base64 of enough random bytes (it would be guessable or break the header)', () => {
    expect(isNonce(NONCE)).toBe(true);
    expect(() => pageCsp({ nonce: "abc'; script-src *" })).toThrow();
    expect(() => pageCsp({ nonce: 'short' })).toThrow();
  });

  it('API responses load and run nothing', () => {
    expect(directives(apiCsp()).get('default-src')).toEqual([`'none'`]);
    expect(directives(apiCsp()).get('frame-ancestors')).toEqual([`'none'`]);
    expect(isApiPath('/api/tip')).toBe(true);
    expect(isApiPath('/api/targets')).toBe(true);
    expect(isApiPath('/api/auth/signin')).toBe(false); // next-auth may answer HTML
    expect(isApiPath('/metrics')).toBe(true); // Prometheus text, a route handler
    expect(isApiPath('/apis')).toBe(false);
    expect(isApiPath('/work/abc')).toBe(false);
  });
});

describe('static headers and the proxy', () => {
  it('next.config.mjs gives every path the same static headers as the builder module', async () => {
    expect(SECURITY_HEADERS).toEqual(STATIC_SECURITY_HEADERS);
    const rules = await nextConfig.headers();
    expect(rules).toEqual([{ source: '/:path*', headers: STATIC_SECURITY_HEADERS }]);
    const keys = STATIC_SECURITY_HEADERS.map((h) => h.key);
    expect(keys).toEqual(expect.arrayContaining(['X-Frame-Options', 'X-Content-Type-Options', 'Referrer-Policy']));
    expect(STATIC_SECURITY_HEADERS.find((h) => h.key === 'X-Frame-Options')!.value).toBe('DENY');
    expect(STATIC_SECURITY_HEADERS.find((h) => h.key === 'X-Content-Type-Options')!.value).toBe('nosniff');
  });

  it('a page gets a fresh nonce per request, on the response CSP and on the request Next renders with', () => {
    const a = proxy(new NextRequest('http://127.0.0.1:3000/work'));
    const b = proxy(new NextRequest('http://127.0.0.1:3000/work'));
    const csp = a.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(isNonce(nonce)).toBe(true);
    expect(b.headers.get('content-security-policy')).not.toBe(csp);
    // NextResponse.next({ request: { headers } }) forwards overridden request headers as x-middleware-request-*.
    expect(a.headers.get('x-middleware-request-content-security-policy')).toBe(csp);
    expect(a.headers.get('x-middleware-request-x-nonce')).toBe(nonce);
    // The static headers come from next.config.mjs alone (never sent twice).
    for (const h of STATIC_SECURITY_HEADERS) expect(a.headers.get(h.key)).toBeNull();
  });

  it('an API route gets the no-content CSP', () => {
    const r = proxy(new NextRequest('http://127.0.0.1:3000/api/tip'));
    expect(r.headers.get('content-security-policy')).toBe(apiCsp());
    expect(r.headers.get('x-middleware-request-x-nonce')).toBeNull();
  });
});
