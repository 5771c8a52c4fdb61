/**
 * The local-mode login token (Jupyter style): generated at start-up, printed
 * once to the operator's terminal, and valid for that server process. Only
 * its SHA-256 travels to the server code (environment); comparison is
 * constant-time. The token never appears in logs.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_HASH_ENV = 'FAIRWAY_CONSOLE_TOKEN_SHA256';

export function newLoginToken(): string {
  return randomBytes(24).toString('base64url');
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function verifyLoginToken(candidate: unknown, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  const expected = env[TOKEN_HASH_ENV];
  if (typeof candidate !== 'string' || candidate.length === 0 || candidate.length > 256) return false;
  if (expected === undefined || !/^[0-9a-f]{64}$/.test(expected)) return false;
  return timingSafeEqual(Buffer.from(tokenHash(candidate), 'hex'), Buffer.from(expected, 'hex'));
}
