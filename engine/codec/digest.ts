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
