/**
 * Console links that keep time travel (docs/console.md): a pinned `?at=` commit
 * survives every navigation, the top bar's included. Pure, shared by server
 * pages and client components.
 */

/** A console path with `?at=` kept (time travel survives navigation) and extra query parameters. */
export function withAt(path: string, at: string | null | undefined, params: Record<string, string | number | null | undefined> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') p.set(k, String(v));
  if (at) p.set('at', at);
  const s = p.toString();
  return s === '' ? path : `${path}?${s}`;
}

/** "N commits ago" of a pinned commit at 0-based `index` in a ledger of `total` commits. */
export function commitsAgo(index: number, total: number): string {
  const n = Math.max(0, total - 1 - index);
  return n === 0 ? 'the tip' : `${n} commit${n === 1 ? '' : 's'} ago`;
}

const SAME_ORIGIN = 'http://console.invalid';

/**
 * Where sign-in returns to (`/login?callbackUrl=`): a path of this console, else `/admin`. The
 * value is resolved as the browser resolves it, so `/\evil.example` or `/<tab>/evil.example`
 * (both `//evil.example` to a browser) cannot send a freshly signed-in operator to another site.
 */
export function safeCallback(raw: string | null): string {
  if (raw === null || !raw.startsWith('/')) return '/admin';
  let url: URL;
  try {
    url = new URL(raw, SAME_ORIGIN);
  } catch {
    return '/admin';
  }
  return url.origin === SAME_ORIGIN ? `${url.pathname}${url.search}${url.hash}` : '/admin';
}
