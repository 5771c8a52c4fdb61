import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { ProtocolError } from '../errors.ts';
import { sha256Hex, sha256HexOfParts } from './digest.ts';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProtocolError) return e.code;
    throw e;
  }
  return undefined;
}

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 test vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe(sha256Hex('abc'));
  });
  it('hashes strings as UTF-8', () => {
    expect(sha256Hex('é😀')).toBe(sha256Hex(new Uint8Array([0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80])));
    expect(sha256Hex('é😀')).toBe(createHash('sha256').update(Buffer.from('é😀', 'utf8')).digest('hex'));
  });
  it('refuses a string with an unpaired surrogate instead of hashing U+FFFD', () => {
    expect(codeOf(() => sha256Hex('a\ud800'))).toBe('invalid_unicode');
    expect(codeOf(() => sha256Hex('\udc00'))).toBe('invalid_unicode');
    expect(codeOf(() => sha256Hex('\ud83d\ude00'))).toBeUndefined();
  });
});

describe('sha256HexOfParts', () => {
  it('hashes the parts as one joined string, and rejects an unpaired surrogate in any part', () => {
    for (const parts of [[], [''], ['a', 'bc'], ['{"actor":', '{"x":"é😀"}', ',"kind":"submit","parameters":', '{}', '}']]) {
      expect(sha256HexOfParts(...parts)).toBe(sha256Hex(parts.join('')));
    }
    expect(codeOf(() => sha256HexOfParts('a', '\ud800'))).toBe('invalid_unicode');
    expect(codeOf(() => sha256HexOfParts('\ud83d', '\ude00'))).toBe('invalid_unicode');
  });
});
