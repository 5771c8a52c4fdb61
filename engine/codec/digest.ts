/** SHA-256 hex digests for identities and fingerprints (contract `identities`, `fingerprint`). */
import { createHash } from 'node:crypto';
import { fail } from '../errors.ts';
import { isWellFormedUnicode } from './json.ts';

/**
 * Lowercase hex SHA-256 of `data`; a string is hashed as its UTF-8 bytes. A string with an
 * unpaired surrogate has no UTF-8 form (it would silently hash U+FFFD): `invalid_unicode`.
 */
export function sha256Hex(data: string | Uint8Array): string {
  if (typeof data === 'string') {
    if (!isWellFormedUnicode(data)) fail('invalid_unicode', 'cannot hash a string with an unpaired surrogate');
    return createHash('sha256').update(data, 'utf8').digest('hex');
  }
  return createHash('sha256').update(data).digest('hex');
}

/**
 * `sha256Hex(parts.join(''))` without building the joined string: each part is hashed as its
 * UTF-8 bytes in turn (replay hashes request fingerprints from spans of a ledger line). A part
 * with an unpaired surrogate is `invalid_unicode`, as for `sha256Hex`; a pair split across two
 * parts is rejected too (it has no UTF-8 form in either part).
 */
export function sha256HexOfParts(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    if (!isWellFormedUnicode(part)) fail('invalid_unicode', 'cannot hash a string with an unpaired surrogate');
    hash.update(part, 'utf8');
  }
  return hash.digest('hex');
}
