/** SHA-256 hex digests for identities and fingerprints (contract `identities`, `fingerprint`). */
import * as crypto from 'node:crypto';
import { fail } from '../errors.ts';
import { isWellFormedUnicode } from './json.ts';

/**
 * Lowercase hex SHA-256 of `data`; a string is hashed as its UTF-8 bytes. A string with an
 * unpaired surrogate has no UTF-8 form (it would silently hash U+FFFD): `invalid_unicode`.
 */
export function sha256Hex(data: string | Uint8Array): string {
  if (typeof data === 'string' && !isWellFormedUnicode(data)) fail('invalid_unicode', 'cannot hash a string with an unpaired surrogate');
  return oneShot(data);
}

/**
 * One-shot SHA-256 (`crypto.hash`, Node >= 20.12: no Hash object per call, the replay hot path
 * hashes an identity per Work and per Claim); `createHash` where it is missing.
 */
const oneShot: (data: string | Uint8Array) => string = typeof (crypto as { hash?: unknown }).hash === 'function'
  ? (data) => (crypto as unknown as { hash: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }).hash('sha256', data, 'hex')
  : (data) => crypto.createHash('sha256').update(data).digest('hex');

/**
 * `sha256Hex(parts.join(''))` where each part must be well-formed on its own (replay hashes
 * request fingerprints from spans of a ledger line). A part with an unpaired surrogate is
 * `invalid_unicode`, as for `sha256Hex`; a pair split across two parts is rejected too (it has no
 * UTF-8 form in either part). The parts are joined and hashed in one shot: creating a Hash object
 * per record costs more than copying its text once.
 */
export function sha256HexOfParts(...parts: string[]): string {
  for (const part of parts) {
    if (!isWellFormedUnicode(part)) fail('invalid_unicode', 'cannot hash a string with an unpaired surrogate');
  }
  return oneShot(parts.join(''));
}
