/**
 * Identity, decimal-ID, reason-code and revision predicates (spec 7.6 "Identity bounds apply to
 * UTF-8 bytes"; contract `identities`, `reason_code`; identity/reason validation fixtures).
 */
import { isWellFormedUnicode, utf8ByteLength } from '../codec/json.ts';

export const IDENTITY_MAX_UTF8_BYTES = 256;
export const DECIMAL_MAX_DIGITS = 256;

// ASCII C0 controls and DEL are forbidden in identities (contract `identities`).
// eslint-disable-next-line no-control-regex -- matching C0 controls is the point
const FORBIDDEN = /[\u0000-\u001f\u007f]/;
const DECIMAL = /^[1-9][0-9]*$/;
const NOT_PRINTABLE_ASCII = /[^\u0020-\u007e]/;
const REASON = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
/** `Revision`: a lowercase SHA-1 or SHA-256 Git object name (the schema's RevisionSchema). */
export const REVISION = /^(?:[a-f0-9]{40}|[a-f0-9]{64})$/;

/**
 * A nonempty well-formed string of at most 256 UTF-8 bytes without C0 controls or DEL.
 * Replay checks every identity of every record: printable ASCII (the common case) is answered
 * by one native scan; otherwise one pass over the units checks controls and counts UTF-8 bytes
 * together; a string holding a surrogate takes the general check (`identitySlow`), which the
 * tests compare it with.
 */
export function isIdentity(s: string): boolean {
  if (typeof s !== 'string') return false;
  const n = s.length;
  if (n === 0 || n > IDENTITY_MAX_UTF8_BYTES) return false;
  // Printable ASCII only (ids, keys, hex digests): one byte per unit, no control, no DEL.
  if (!NOT_PRINTABLE_ASCII.test(s)) return true;
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c < 0x20 || c === 0x7f) return false;
    } else if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdfff) return identitySlow(s);
    else bytes += 2;
  }
  return bytes <= IDENTITY_MAX_UTF8_BYTES;
}

/** The definition, check by check (also the reference for `isIdentity`'s single pass). */
export function identitySlow(s: string): boolean {
  return (
    typeof s === 'string' &&
    s.length > 0 &&
    s.length <= IDENTITY_MAX_UTF8_BYTES &&
    !FORBIDDEN.test(s) &&
    isWellFormedUnicode(s) &&
    utf8ByteLength(s) <= IDENTITY_MAX_UTF8_BYTES
  );
}

/** A positive canonical decimal string (`^[1-9][0-9]*$`) of at most 256 digits. */
export function isDecimalId(s: string): boolean {
  return typeof s === 'string' && s.length <= DECIMAL_MAX_DIGITS && DECIMAL.test(s);
}

/** A sanitized reason code: `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$` (at most 128 ASCII chars). */
export function isReasonCode(s: string): boolean {
  return typeof s === 'string' && REASON.test(s);
}

/** A lowercase 40- or 64-hex Git object name: an immutable revision (`execution_ref`, worker `ref`). */
export function isRevision(s: string): boolean {
  return typeof s === 'string' && REVISION.test(s);
}
