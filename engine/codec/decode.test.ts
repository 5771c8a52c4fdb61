/**
 * `decodeUtf8` decodes ASCII bytes as Latin-1 and otherwise validates with `isUtf8` and then
 * decodes without the fatal decoder: it must answer exactly what a fatal `TextDecoder`
 * (ignoreBOM) answers, on arbitrary bytes, on ASCII and UTF-8 text with one byte changed, and on
 * a Buffer view into a larger buffer (how replay hands it each record) as on a Uint8Array.
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

  it('on ASCII bytes (decoded as Latin-1) with one byte changed to any byte', () => {
    fc.assert(fc.property(fc.uint8Array({ max: 0x7f, maxLength: 64 }), fc.nat(), fc.integer({ min: 0, max: 255 }), (bytes, at, byte) => {
      expect(mine(bytes)).toBe(fatal(bytes));
      if (bytes.length === 0) return;
      bytes[at % bytes.length] = byte;
      expect(mine(bytes)).toBe(fatal(bytes));
    }), { numRuns: 5000 });
  });

  it('on a Buffer view at an offset into a larger Buffer, as on a plain Uint8Array', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 48 }), fc.uint8Array({ max: 0x7f, maxLength: 48 }), fc.nat(), fc.nat(), (noise, ascii, a, b) => {
      const whole = Buffer.concat([Buffer.from(noise), Buffer.from(ascii), Buffer.from(noise)]);
      const start = a % (whole.length + 1);
      const end = start + (b % (whole.length - start + 1));
      const view = whole.subarray(start, end);
      const copy = Uint8Array.from(view);
      expect(mine(view)).toBe(fatal(copy));
      expect(mine(copy)).toBe(fatal(copy));
      expect(mine(new Uint8Array(whole.buffer, whole.byteOffset + start, end - start))).toBe(fatal(copy));
      const middle = whole.subarray(noise.length, noise.length + ascii.length);
      expect(mine(middle)).toBe(fatal(Uint8Array.from(middle)));
    }), { numRuns: 3000 });
  });
});
