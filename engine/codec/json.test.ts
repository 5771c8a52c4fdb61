import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ProtocolError } from '../errors.ts';
import type { JsonValue } from '../json.ts';
import { ARRAY_MEMBER_LIMIT, NESTING_LIMIT, canonicalize, isWellFormedUnicode, parseStrict, utf8ByteLength } from './json.ts';
import { referenceSkip } from '../../tests/support/reference.ts';

const FIXTURES = fileURLToPath(new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/', import.meta.url));
const haveFixtures = existsSync(FIXTURES);
const fixture = (name: string): unknown => JSON.parse(readFileSync(FIXTURES + name, 'utf8'));

/** The ProtocolError code thrown by fn, or undefined when it returns. */
function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    // The contract limits answer the reference's resource_limit; details.limit says which one.
    if (e instanceof ProtocolError) return e.code === 'resource_limit' ? `resource_limit:${String(e.details?.limit)}` : e.code;
    throw e;
  }
  return undefined;
}

interface CanonicalFixture {
  valid: Array<{ name: string; input: string; expected: string }>;
  invalid: string[];
  error_codes: Array<{ name: string; input: string; code: string }>;
  typed_number_rejections: Array<{ name: string; input: string; code: string }>;
}
interface TypedFixture {
  containers: Record<string, string>;
  cases: Array<{ name: string; literal: string; container: string; expected?: string; code?: string }>;
}

describe.skipIf(referenceSkip(haveFixtures))(`canonical.json fixture (needs ${FIXTURES})`, () => {
  const fx = (haveFixtures ? fixture('canonical.json') : { valid: [], invalid: [], error_codes: [], typed_number_rejections: [] }) as CanonicalFixture;

  it('has cases', () => expect(fx.valid.length + fx.invalid.length + fx.error_codes.length).toBeGreaterThan(20));
  for (const c of fx.valid) {
    it(`valid: ${c.name}`, () => {
      const value = parseStrict(c.input);
      expect(canonicalize(value)).toBe(c.expected);
      expect(canonicalize(parseStrict(c.expected))).toBe(c.expected);
      expect(parseStrict(c.expected)).toEqual(value);
    });
  }
  for (const input of fx.invalid) {
    it(`invalid: ${input}`, () => expect(codeOf(() => parseStrict(input))).toBeDefined());
  }
  for (const c of fx.error_codes) {
    it(`error code: ${c.name}`, () => expect(codeOf(() => parseStrict(c.input))).toBe(c.code));
  }
  for (const c of fx.typed_number_rejections) {
    it(`typed rejection: ${c.name}`, () => {
      expect(codeOf(() => canonicalize(Number(c.input)))).toBe(c.code);
      expect(codeOf(() => parseStrict(c.input))).toBe(c.code); // the same spelling as a token
    });
  }
});

describe.skipIf(referenceSkip(haveFixtures))(`canonical-typed.json fixture (needs ${FIXTURES})`, () => {
  const fx = (haveFixtures ? fixture('canonical-typed.json') : { containers: {}, cases: [] }) as TypedFixture;
  // Build the container around an actual typed number (never JSON-round-trip it).
  const wrap = (container: string, value: number): JsonValue => {
    switch (container) {
      case 'root': return value;
      case 'object': return { value };
      case 'array': return [value];
      case 'nested': return { payload: { numbers: [value], sentinel: '9007199254740993' } };
      default: throw new Error(`unknown container ${container}`);
    }
  };
  it('covers every container the fixture defines', () => {
    expect(Object.keys(fx.containers).sort()).toEqual(['array', 'nested', 'object', 'root']);
    expect(fx.cases.length).toBeGreaterThan(20);
  });
  for (const c of fx.cases) {
    it(`${c.name} (${c.container})`, () => {
      const value = wrap(c.container, Number(c.literal));
      if (c.code !== undefined) expect(codeOf(() => canonicalize(value))).toBe(c.code);
      else expect(canonicalize(value)).toBe(c.expected);
    });
  }
});

const nested = (depth: number, leaf: string): string => '['.repeat(depth) + leaf + ']'.repeat(depth);

describe('parseStrict limits and syntax', () => {
  it(`accepts a value inside ${NESTING_LIMIT} containers, rejects one inside ${NESTING_LIMIT + 1}`, () => {
    expect(codeOf(() => parseStrict(nested(NESTING_LIMIT, '1')))).toBeUndefined();
    expect(codeOf(() => parseStrict(nested(NESTING_LIMIT + 1, '1')))).toBe('resource_limit:nesting');
    expect(codeOf(() => parseStrict('{"a":'.repeat(NESTING_LIMIT + 1) + '1' + '}'.repeat(NESTING_LIMIT + 1)))).toBe('resource_limit:nesting');
    expect(codeOf(() => parseStrict(nested(100000, '')))).toBe('resource_limit:nesting');
    expect(codeOf(() => parseStrict(nested(3, '1'), { maxDepth: 2 }))).toBe('resource_limit:nesting');
  });
  it(`accepts ${ARRAY_MEMBER_LIMIT} array members, rejects ${ARRAY_MEMBER_LIMIT + 1}`, () => {
    const arr = (n: number) => '[' + Array(n).fill('0').join(',') + ']';
    expect((parseStrict(arr(ARRAY_MEMBER_LIMIT)) as JsonValue[]).length).toBe(ARRAY_MEMBER_LIMIT);
    expect(codeOf(() => parseStrict(arr(ARRAY_MEMBER_LIMIT + 1)))).toBe('resource_limit:array_members');
    expect(codeOf(() => parseStrict('[1,2,3]', { maxArrayMembers: 2 }))).toBe('resource_limit:array_members');
  });
  it('enforces the byte limit in UTF-8 bytes, not UTF-16 units', () => {
    expect(codeOf(() => parseStrict('"abcd"', { maxBytes: 6 }))).toBeUndefined();
    expect(codeOf(() => parseStrict('"abcde"', { maxBytes: 6 }))).toBe('resource_limit:parser_bytes');
    expect(codeOf(() => parseStrict('"éé"', { maxBytes: 6 }))).toBeUndefined(); // 4 units, 6 bytes
    expect(codeOf(() => parseStrict('"éé"', { maxBytes: 5 }))).toBe('resource_limit:parser_bytes');
    expect(codeOf(() => parseStrict('"😀"', { maxBytes: 5 }))).toBe('resource_limit:parser_bytes'); // 4 units, 6 bytes
  });
  const syntax: Array<[string, string]> = [
    ['', 'empty'], [' ', 'whitespace only'], ['{} {}', 'two values'], ['{}x', 'trailing garbage'],
    ['{"a":1,}', 'trailing comma'], ['[1,]', 'array trailing comma'], ["{'a':1}", 'single quotes'],
    ['{"a" 1}', 'missing colon'], ['{a:1}', 'bare key'], ['[1 2]', 'missing comma'], ['"abc', 'unterminated string'],
    ['"\\x"', 'bad escape'], ['"\\u12g4"', 'bad \\u escape'], ['"\\u12"', 'short \\u escape'], ['"a\tb"', 'raw tab in string'],
    ['"a\u0000b"', 'raw NUL in string'], ['tru', 'truncated literal'], ['nul', 'truncated null'], ['True', 'capital literal'],
    ['-', 'lone minus'], ['+1', 'plus sign'], ['.5', 'bare fraction'], ['1.', 'empty fraction'], ['1e', 'empty exponent'],
    ['NaN', 'NaN'], ['Infinity', 'Infinity'], ['\ufeff{}', 'byte order mark'], ['{"a":1}\u00a0', 'non-JSON whitespace'],
  ];
  for (const [text, name] of syntax) {
    it(`invalid_json: ${name}`, () => expect(codeOf(() => parseStrict(text))).toBe('invalid_json'));
  }
  const numbers: Array<[string, string]> = [
    ['01', 'leading zero'], ['-01', 'negative leading zero'], ['00', 'double zero'], ['-0', 'negative zero'],
    ['1.0', 'integral fraction'], ['1e0', 'exponent'], ['1E+2', 'upper exponent'], ['0.5', 'fraction'],
    ['9007199254740992', 'max safe + 1'], ['-9007199254740992', 'min safe - 1'], ['12345678901234567890', 'long integer'],
  ];
  for (const [text, name] of numbers) {
    it(`noncanonical_number: ${name}`, () => expect(codeOf(() => parseStrict(`{"n":${text}}`))).toBe('noncanonical_number'));
  }
  it('accepts canonical integers and surrounding JSON whitespace', () => {
    expect(parseStrict(' \t\r\n{ "a" : [ 0 , -1 , 9007199254740991 , -9007199254740991 ] }\n')).toEqual({
      a: [0, -1, 9007199254740991, -9007199254740991],
    });
    expect(parseStrict('[true,false,null,"x"]')).toEqual([true, false, null, 'x']);
  });
  it('decodes every JSON escape and keeps a literal backslash-u text', () => {
    expect(parseStrict('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\ud83d\\ude00"')).toBe('"\\/\b\f\n\r\tAé😀');
    expect(parseStrict('"\\\\u0041"')).toBe('\\u0041');
  });
  it('rejects unpaired surrogates, raw or escaped, in values and keys', () => {
    for (const text of ['"\\ud83d"', '"\\ude00\\ud83d"', '"\ud83d"', '{"\\udfff":1}', '"a\\ud800b"']) {
      expect(codeOf(() => parseStrict(text))).toBe('invalid_unicode');
    }
    expect(parseStrict('"\ud83d\ude00"')).toBe('😀');
  });
  it('detects duplicates after decoding, recursively, in nested arrays too', () => {
    expect(codeOf(() => parseStrict('{"é":1,"\\u00e9":2}'))).toBe('duplicate_key');
    expect(codeOf(() => parseStrict('[{"a":{"b":[{"c":1,"c":1}]}}]'))).toBe('duplicate_key');
    expect(codeOf(() => parseStrict('{"__proto__":1,"__proto__":2}'))).toBe('duplicate_key');
    expect(parseStrict('{"a":{"x":1},"b":{"x":1}}')).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });
  it('keeps __proto__ as an own member without touching the prototype', () => {
    const v = parseStrict('{"__proto__":{"polluted":true},"constructor":1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(canonicalize(v as JsonValue)).toBe('{"__proto__":{"polluted":true},"constructor":1}');
    expect(v).toEqual(JSON.parse('{"__proto__":{"polluted":true},"constructor":1}'));
  });
});

describe('canonicalize', () => {
  it('escapes only quote, backslash and C0 controls, with the reference spelling', () => {
    const all = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join('');
    expect(canonicalize(all)).toBe(
      '"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f' +
        '\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f"',
    );
    expect(canonicalize('"\\/<>&\u007f\u0080\u2028\u2029\ufeff😀')).toBe('"\\"\\\\/<>&\u007f\u0080\u2028\u2029\ufeff😀"');
  });
  it('sorts keys by UTF-8 bytes, including around surrogates', () => {
    const v = { '\uffff': 1, '😀': 2, '\ue000': 3, b: 4, a: 5, '10': 6, '2': 7, '': 8, 'é': 9 };
    expect(canonicalize(v)).toBe('{"":8,"10":6,"2":7,"a":5,"b":4,"é":9,"\ue000":3,"\uffff":1,"😀":2}');
  });
  it('key order equals Buffer.compare of UTF-8 bytes (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 4 }), { maxLength: 12 }), (keys) => {
        const obj = Object.fromEntries(keys.map((k) => [k, 0]));
        const expected = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
        expect(canonicalize(obj)).toBe('{' + expected.map((k) => JSON.stringify(k) + ':0').join(',') + '}');
      }),
      { numRuns: 500 },
    );
  });
  it('rejects unpaired surrogates in values and keys', () => {
    expect(codeOf(() => canonicalize('\ud800'))).toBe('invalid_unicode');
    expect(codeOf(() => canonicalize({ ['\udc00']: 1 }))).toBe('invalid_unicode');
    expect(codeOf(() => canonicalize(['ok', 'a\ude00']))).toBe('invalid_unicode');
  });
  it('rejects typed numbers outside the profile', () => {
    for (const n of [-0, 0.5, 1e21, Number.MAX_SAFE_INTEGER + 1, NaN, Infinity, -Infinity]) {
      expect(codeOf(() => canonicalize({ n }))).toBe('noncanonical_number');
    }
    expect(canonicalize([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 0, 1e3])).toBe('[9007199254740991,-9007199254740991,0,1000]');
  });
  it('rejects values that are not JSON', () => {
    const holey = [1, 2, 3];
    delete holey[1];
    const bad: unknown[] = [undefined, 1n, () => 1, Symbol('s'), new Date(0), new Map(), holey, { a: undefined }, new (class X {})()];
    for (const v of bad) expect(codeOf(() => canonicalize(v as JsonValue))).toBe('unsupported_value');
    expect(canonicalize(Object.assign(Object.create(null) as object, { b: 1, a: 2 }) as JsonValue)).toBe('{"a":2,"b":1}');
  });
  it('enforces nesting and array limits like parseStrict (cycles included)', () => {
    const deep = (n: number): JsonValue => (n === 0 ? 1 : [deep(n - 1)]);
    expect(canonicalize(deep(NESTING_LIMIT))).toBe(nested(NESTING_LIMIT, '1'));
    expect(codeOf(() => canonicalize(deep(NESTING_LIMIT + 1)))).toBe('resource_limit:nesting');
    const cyclic: Record<string, JsonValue> = {};
    cyclic.self = cyclic;
    expect(codeOf(() => canonicalize(cyclic))).toBe('resource_limit:nesting');
    expect(codeOf(() => canonicalize(new Array<JsonValue>(ARRAY_MEMBER_LIMIT).fill(0)))).toBeUndefined();
    expect(codeOf(() => canonicalize(new Array<JsonValue>(ARRAY_MEMBER_LIMIT + 1).fill(0)))).toBe('resource_limit:array_members');
  });
});

describe('UTF-8 helpers', () => {
  it('utf8ByteLength matches Buffer.byteLength for well-formed text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(utf8ByteLength(s)).toBe(Buffer.byteLength(s, 'utf8'));
      }),
    );
    expect(utf8ByteLength('\ud800x')).toBe(4); // lone surrogate = U+FFFD
  });
  it('isWellFormedUnicode', () => {
    expect(isWellFormedUnicode('a😀é')).toBe(true);
    expect(isWellFormedUnicode('a\ud83d')).toBe(false);
    expect(isWellFormedUnicode('\ude00a')).toBe(false);
  });
});

// Arbitrary wire values: safe integers and strings of any Unicode scalar values.
const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string());
const wireValue = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    text,
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(fc.oneof(text, fc.constantFrom('__proto__', 'constructor', '10', '2')), tie('value'), { maxKeys: 6 }),
  ),
})).value;

describe('round-trip properties', () => {
  it('parseStrict(canonicalize(v)) equals v, and canonicalize is idempotent', () => {
    fc.assert(
      fc.property(wireValue, (v) => {
        const c = canonicalize(v);
        const back = parseStrict(c);
        expect(back).toEqual(v);
        expect(canonicalize(back)).toBe(c);
        expect(JSON.parse(c)).toEqual(v);
      }),
      { numRuns: 1000 },
    );
  });
  it('parseStrict accepts any whitespace formatting of a wire value and canonicalizes it identically', () => {
    fc.assert(
      fc.property(wireValue, fc.constantFrom(0, 1, '\t', ' \r\n'), (v, indent) => {
        const pretty = JSON.stringify(v, null, indent);
        expect(canonicalize(parseStrict(pretty))).toBe(canonicalize(v));
      }),
      { numRuns: 300 },
    );
  });
});
