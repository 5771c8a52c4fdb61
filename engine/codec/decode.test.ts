/**
 * `decodeUtf8` validates with `isUtf8` and then decodes without the fatal decoder: it must
 * answer exactly what a fatal `TextDecoder` (ignoreBOM) answers, on arbitrary bytes and on
 * UTF-8 text with one byte changed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import { decodeUtf8 } from './lines.ts';

const FATAL = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function fatal(bytes: Uint8Array): string {
  try {
    return FATAL.decode(bytes);
  } catch {
    return 'invalid_unicode';
  }
}

function mine(bytes: Uint8Array): string {
  try {
    return decodeUtf8(bytes);
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
}

describe('decodeUtf8 ≡ a fatal TextDecoder', () => {
  it('on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      expect(mine(bytes)).toBe(fatal(bytes));
    }), { numRuns: 5000 });
  });

  it('on UTF-8 text (BOM, surrogate pairs, every width) with one byte changed', () => {
    const encoder = new TextEncoder();
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 24 }), fc.nat(), fc.integer({ min: 0, max: 255 }), (text, at, byte) => {
      const bytes = encoder.encode(`\ufeff${text}😀é€`);
      expect(mine(bytes)).toBe(fatal(bytes));
      bytes[at % bytes.length] = byte;
      expect(mine(bytes)).toBe(fatal(bytes));
    }), { numRuns: 5000 });
  });
});
