/**
 * The local-mode login tokens: generated at start-up (or fixed by
 * FAIRWAY_CONSOLE_TOKEN, a comma-separated list), printed once to the
 * operator's terminal. Each token signs in once (docs/console.md "Authentication and roles", docs/console.md)
 * and expires FAIRWAY_CONSOLE_TOKEN_TTL_MS after start-up (default 1 hour);
 * a new one needs a new start. Only the SHA-256 of each token travels to the
 * server code (environment); comparison is constant-time. Redeemed hashes
 * are kept on `globalThis`, shared by every module graph of the process
 * (Next.js bundles its own copy of this module). Tokens never appear in logs.
 *
 * The role a token grants is configuration, never a choice on the sign-in
 * form (docs/console.md): the start-up tokens sign in as administrator only when
 * the console was started with `--admin`, otherwise as observer; tokens of
 * FAIRWAY_CONSOLE_OBSERVER_TOKEN always sign in as observer.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_HASH_ENV = 'FAIRWAY_CONSOLE_TOKEN_SHA256';
/** Hashes of the tokens that sign in as observer whatever the admin flag says. */
export const OBSERVER_TOKEN_HASH_ENV = 'FAIRWAY_CONSOLE_OBSERVER_TOKEN_SHA256';
/** When the login tokens stop working (ms since the epoch). */
export const TOKEN_EXPIRES_ENV = 'FAIRWAY_CONSOLE_TOKEN_EXPIRES';
export const DEFAULT_TOKEN_TTL_MS = 60 * 60 * 1000;

type Env = Readonly<Record<string, string | undefined>>;

export function newLoginToken(): string {
  return randomBytes(24).toString('base64url');
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The tokens of a FAIRWAY_CONSOLE_TOKEN value (comma-separated, blanks ignored). */
export function parseTokenList(raw: string): string[] {
  return raw.split(',').map((t) => t.trim()).filter((t) => t.length > 0);
}

/** The hash of `candidate` when it is one of the configured tokens and has not expired; else null. */
function matchingHash(candidate: unknown, env: Env, now: number, variable: string = TOKEN_HASH_ENV): string | null {
  if (typeof candidate !== 'string' || candidate.length === 0 || candidate.length > 256) return null;
  const expected = (env[variable] ?? '').split(',').filter((h) => /^[0-9a-f]{64}$/.test(h));
  if (expected.length === 0) return null;
  const expires = Number(env[TOKEN_EXPIRES_ENV]);
  if (env[TOKEN_EXPIRES_ENV] !== undefined && (!Number.isFinite(expires) || now >= expires)) return null;
  const hash = Buffer.from(tokenHash(candidate), 'hex');
  let found: string | null = null;
  for (const h of expected) if (timingSafeEqual(hash, Buffer.from(h, 'hex'))) found = h;
  return found;
}

/** Whether `candidate` is a configured, unexpired token (does not redeem it). */
export function verifyLoginToken(candidate: unknown, env: Env = process.env, now: number = Date.now()): boolean {
  return matchingHash(candidate, env, now) !== null;
}

const REDEEMED = Symbol.for('fairway.console.redeemedTokens');

function redeemedTokens(): Set<string> {
  const holder = globalThis as { [REDEEMED]?: Set<string> };
  return (holder[REDEEMED] ??= new Set<string>());
}

/** Signs in with `candidate` once: true the first time a valid token is presented, false ever after. */
export function redeemLoginToken(candidate: unknown, env: Env = process.env, now: number = Date.now(), redeemed: Set<string> = redeemedTokens()): boolean {
  const hash = matchingHash(candidate, env, now);
  if (hash === null || redeemed.has(hash)) return false;
  redeemed.add(hash);
  return true;
}

/**
 * Signs in with `candidate` once and answers the role it grants: a start-up
 * token grants administrator when `admin` (the console's `--admin` flag),
 * else observer; an observer token grants observer. Null: not a valid,
 * unexpired, unused token.
 */
export function redeemLoginRole(candidate: unknown, admin: boolean, env: Env = process.env, now: number = Date.now(), redeemed: Set<string> = redeemedTokens()): 'administrator' | 'observer' | null {
  const main = matchingHash(candidate, env, now);
  const hash = main ?? matchingHash(candidate, env, now, OBSERVER_TOKEN_HASH_ENV);
  if (hash === null || redeemed.has(hash)) return null;
  redeemed.add(hash);
  return main !== null && admin ? 'administrator' : 'observer';
}

/** Forgets redeemed tokens (a new start of the console issues new ones). */
export function resetRedeemedTokens(): void {
  redeemedTokens().clear();
}

/**
 * An id of this start of the console (its token hashes and expiry; null before a start). A
 * local-mode session carries the id of the start that signed it in and is refused by any other
 * start, so a session never outlives the start whose `--admin` flag decided its role, even when
 * NEXTAUTH_SECRET is set and stays the same across restarts.
 */
export function consoleStartId(env: Env = process.env): string | null {
  const hashes = env[TOKEN_HASH_ENV];
  if (hashes === undefined || hashes === '') return null;
  return createHash('sha256').update(`${hashes}|${env[OBSERVER_TOKEN_HASH_ENV] ?? ''}|${env[TOKEN_EXPIRES_ENV] ?? ''}`, 'utf8').digest('hex');
}
