/**
 * The console's `Host` check (docs/console.md "Authentication and roles", DNS rebinding). A page that an
 * attacker's domain serves can make the browser resolve that domain to
 * 127.0.0.1 and read the console's pages with no session (local mode serves
 * reads to whoever reaches the loopback port). Such requests carry the
 * attacker's name in `Host`, so the server answers only for:
 *   - loopback names (`localhost`, `127.0.0.0/8`, `[::1]`) and the literal
 *     interface the console listens on, in both modes;
 *   - the configured public URL's host name (NEXTAUTH_URL), in hosted mode.
 * The check runs in the HTTP server before Next.js sees the request, so it
 * covers every page, API route and static asset alike.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface HostPolicy {
  mode: 'local' | 'hosted';
  /** The interface the server listens on (`--host`). */
  listenHost: string;
  /** Hosted mode: the console's public URL (NEXTAUTH_URL). */
  publicUrl?: string | undefined;
}

const HOST_HEADER = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::[0-9]{1,5})?$/;

/** The host name of a `Host` header value (lowercase, IPv6 in brackets); null when malformed. */
export function hostName(header: string | undefined): string | null {
  if (header === undefined || !HOST_HEADER.test(header)) return null;
  try {
    return new URL(`http://${header}/`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name === '[::1]') return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return m !== null && m.slice(1).every((octet) => Number(octet) <= 255);
}

/** Whether a request with this `Host` header may be served. */
export function hostAllowed(header: string | undefined, policy: HostPolicy): boolean {
  const name = hostName(header);
  if (name === null) return false;
  if (isLoopbackName(name)) return true;
  if (name === hostName(policy.listenHost) || name === hostName(`[${policy.listenHost}]`)) return true;
  if (policy.mode === 'hosted' && policy.publicUrl !== undefined) {
    try {
      if (name === new URL(policy.publicUrl).hostname.toLowerCase()) return true;
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Refuses a request whose `Host` is not allowed (403 `host_not_allowed`) and
 * returns false; true lets the caller serve it.
 */
export function guardHost(req: IncomingMessage, res: ServerResponse, policy: HostPolicy): boolean {
  if (hostAllowed(req.headers.host, policy)) return true;
  const body = JSON.stringify({ ok: false, error: { code: 'host_not_allowed', message: 'this console answers only for its own host name; open it through the URL it printed at start-up' } });
  res.writeHead(403, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(body);
  return false;
}
