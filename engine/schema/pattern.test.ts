/**
 * The generated loops of fixed-form patterns (pattern.ts) against `RegExp#test` itself: on the
 * wire schemas' patterns and a range of others in the subset, random strings over each pattern's
 * class boundaries (and beyond them: non-ASCII units, lone surrogates, line terminators) must get
 * exactly the regular expression's answer; patterns outside the subset must be left to it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DigestSchema, RevisionSchema } from './common.ts';
import { fixedFormAlternatives, patternFunctionSource } from './pattern.ts';

function compilePattern(pattern: RegExp): ((s: string) => boolean) | null {
  const constants: unknown[] = [];
  const source = patternFunctionSource(pattern, 'p', (value) => `k[${constants.push(value) - 1}]`);
  if (source === null) return null;
  return new Function('k', `${source}\nreturn p;`)(constants) as (s: string) => boolean;
}

/** The pattern of a `z.string().regex(...)` schema. */
function patternOf(schema: { _zod: { def: { checks?: unknown[] } } }): RegExp {
  const check = schema._zod.def.checks![0] as { _zod: { def: { pattern: RegExp } } };
  return check._zod.def.pattern;
}

const IN_SUBSET = [
  patternOf(DigestSchema),
  patternOf(RevisionSchema),
  /^[1-9][0-9]*$/,
  /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/,
  /^$/,
  /^(?:)$/,
  /^a$/,
  /^ab?$/,
  /^a[b-d]+$/,
  /^x{2,}$/,
  /^[a-c]{1,3}$/,
  /^(?:ab|[x-z]{2,3}|q)$/,
  /^(?:|z)$/,
  /^[é-ë]{2}$/,
  new RegExp('^[\ud800-\udbff]?$'), // lone surrogates in the source: units, as without the u flag
  /^[.*+?(){}|$^]{1,2}$/, // syntax characters are literal in a class
];

/** Strings around each pattern's classes and lengths. */
const text = fc.oneof(
  fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'q', 'x', 'y', 'z', 'A', 'F', 'Z', '0', '1', '9', '_', '.', ':', '-', '*', '$', '^', '{', '|', '/', '`', '@', 'é', 'ë', 'ì', '\n', '\r', '\u2028', ' ', '\ud800', '\udbff', '\udc00', '😀'), { maxLength: 140 }).map((u) => u.join('')),
  fc.tuple(fc.constantFrom('a', 'f', '0', '9', 'x'), fc.constantFrom(38, 39, 40, 41, 63, 64, 65, 127, 128, 129), fc.constantFrom('', '\n', 'g', 'F', '-')).map(([c, n, tail]) => c.repeat(n) + tail),
  fc.string({ unit: 'binary', maxLength: 70 }),
);

describe('fixed-form patterns as generated loops (pattern.ts)', () => {
  it('reads the wire schemas\' digest and revision patterns (so replay never enters the regex engine for them)', () => {
    expect(fixedFormAlternatives(patternOf(DigestSchema))).not.toBeNull();
    expect(fixedFormAlternatives(patternOf(RevisionSchema))?.length).toBe(2);
  });

  it('answers exactly what RegExp#test answers, on every pattern of the subset', () => {
    for (const pattern of IN_SUBSET) {
      const loop = compilePattern(pattern);
      expect(loop, String(pattern)).not.toBeNull();
      for (const s of ['', 'a', 'ab', 'f'.repeat(40), 'f'.repeat(64), `${'f'.repeat(64)}\n`, 'é', 'éë', '1', '10', '01']) expect(loop!(s), `${pattern} ${JSON.stringify(s)}`).toBe(pattern.test(s));
      fc.assert(
        fc.property(text, (s) => {
          expect(loop!(s), `${pattern} ${JSON.stringify(s)}`).toBe(pattern.test(s));
        }),
        { numRuns: 3000, seed: 7 },
      );
    }
  });

  it('leaves every pattern outside the subset to the regular expression', () => {
    const outside = [
      /^a$/i, /^a$/u, /^a$/m, /^a$/g, /^a$/y, /^a$/s, // flags change what matches (or its state)
      /^a|b$/, /a/, /^a/, /a$/, // alternation outside a group, unanchored
      /^[^a]$/, /^\d$/, /^.$/, /^[\w]$/, /^a\$$/, // negation, escapes, any
      /^a*?$/, /^a{2}?$/, /^a+b+$/, /^(a)$/, /^(?:a)+$/, /^(?=a)a$/, // lazy, two variable counts, groups
      /^[-a]$/, /^[a-]b-c$/, /^a{2$/, new RegExp("^[]$"),
    ];
    for (const pattern of outside) expect(fixedFormAlternatives(pattern), String(pattern)).toBeNull();
  });
});
