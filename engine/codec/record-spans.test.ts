/**
 * `canonicalRecordSpans` (canonical.ts): the one-pass canonical check of a ledger record that
 * also records the request's member spans and does not scan the request parameters' repeat of
 * the operations again. Checked against the re-serialising path: same verdict, same spans at
 * every level, `repeats` exactly when the texts are equal; on every record of generated and
 * reference-written ledgers, on mutated record texts, and at the nesting limit.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { MUTATIONS, mutateRecord } from '../../tests/support/record-mutation.ts';
import { REFERENCE_ROOT, referenceSkip } from '../../tests/support/reference.ts';
import type { JsonValue } from '../json.ts';
import { canonicalRecordSpans } from './canonical.ts';
import { NESTING_LIMIT, canonicalize, compareCodePoints } from './json.ts';
import { canonicalMembers, type MemberSpans } from './members.ts';

type Json = any;

function slowCanonical(text: string): boolean {
  try {
    return canonicalize(JSON.parse(text) as JsonValue) === text;
  } catch {
    return false;
  }
}

/** Member spans of the object `value` whose canonical text starts at `offset`. */
function slowSpans(value: Json, offset: number): Array<[string, [number, number]]> | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const m = canonicalMembers(value);
  return m === null ? null : [...m.spans].map(([k, [s, e]]) => [k, [s + offset, e + offset]]);
}

/** Member spans of a nested object by writing each member (any keys: no printable-ASCII rule below the top level). */
function nestedSpans(value: Json, offset: number): Array<[string, [number, number]]> | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const keys = Object.keys(value).sort(compareCodePoints);
  const out: Array<[string, [number, number]]> = [];
  let at = offset + 1;
  for (const k of keys) {
    at += canonicalize(k).length + 1;
    const text = canonicalize(value[k]);
    out.push([k, [at, at + text.length]]);
    at += text.length + 1;
  }
  return out;
}

/**
 * The spans of `operations`' elements (at `offset`) and of their `descriptor`, `evidence` and
 * `payload` values, from their serialisations, in canonicalRecordSpans' flat form.
 */
function operationSpans(operations: Json[], offset: number): number[] {
  const out: number[] = [];
  let at = offset + 1;
  for (const op of operations) {
    const length = canonicalize(op).length;
    const members = op !== null && typeof op === 'object' && !Array.isArray(op) ? new Map(nestedSpans(op, at)) : new Map<string, [number, number]>();
    const span = (k: string): [number, number] => members.get(k) ?? [-1, -1];
    out.push(at, at + length, ...span('descriptor'), ...span('evidence'), ...span('payload'));
    at += length + 1;
  }
  return out;
}

/** What the re-serialising path says of every level, in canonicalRecordSpans' form. */
function expected(text: string): unknown {
  if (!slowCanonical(text)) return null;
  const value = JSON.parse(text) as Json;
  const members = slowSpans(value, 0);
  if (members === null) return 'unproven';
  const request = new Map(members).get('request');
  const requestSpans = request === undefined ? null : nestedSpans(value.request, request[0]);
  const parameters = requestSpans === null ? undefined : new Map(requestSpans).get('parameters');
  const parameterSpans = parameters === undefined ? null : nestedSpans(value.request.parameters, parameters[0]);
  const operations = new Map(members).get('operations');
  const opsText = operations === undefined ? null : text.slice(...operations);
  let repeats: string | null = null;
  for (const [name, span] of parameterSpans ?? []) if ((name === 'nodes' || name === 'operations') && text.slice(...span) === opsText) repeats = name;
  const operationsSpans = operations !== undefined && Array.isArray(value.operations) ? operationSpans(value.operations as Json[], operations[0]) : null;
  return { members, request: requestSpans, parameters: parameterSpans, repeats, operations: operationsSpans };
}

/** Valid JSON without a character past U+007F: what replay tells the scanner of an ASCII line. */
function parsedAscii(text: string): boolean {
  if (Buffer.byteLength(text) !== text.length) return false; // what replay checks: UTF-8 length = length
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The scanner's answer; on a parsed ASCII text both of its modes must answer alike. */
function actual(text: string): unknown {
  const general = form(canonicalRecordSpans(text));
  if (parsedAscii(text)) expect(form(canonicalRecordSpans(text, true)), `ASCII mode: ${text.slice(0, 200)}`).toEqual(general);
  return general;
}

function form(r: ReturnType<typeof canonicalRecordSpans>): unknown {
  if (r === null) return null;
  return { members: [...r.members], request: r.request === null ? null : [...r.request], parameters: r.parameters === null ? null : [...r.parameters], repeats: r.repeats, operations: r.operations };
}

/** Exactly the slow path's spans (records whose keys are all plain: every ledger record). */
function expectAgrees(text: string): void {
  expect(actual(text), text.slice(0, 200)).toEqual(expected(text));
}

/**
 * Soundness on arbitrary texts: whatever the scanner proves, the slow path accepts with the same
 * spans. It may answer null for a canonical text it does not prove (an escaped key): the caller
 * then takes the re-serialising path.
 */
function expectSound(text: string): void {
  const got = actual(text);
  if (got !== null) expect(got, text.slice(0, 200)).toEqual(expected(text));
}

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

describe('canonicalRecordSpans ≡ the re-serialising check, at every level', () => {
  const records = lines(generateLedger(200 * 1024, 4).text);

  it('every record of a generated ledger: the same spans, and the repeat of the operations found', () => {
    let repeats = 0;
    for (const text of records) {
      expectAgrees(text);
      if (canonicalRecordSpans(text)!.repeats !== null) repeats += 1;
    }
    expect(repeats).toBeGreaterThan(records.length / 3);
  });

  it('never accepts a mutated record text the slow path rejects, and agrees on the spans of what it accepts', () => {
    fc.assert(fc.property(fc.nat(), fc.nat(), fc.nat(), fc.constantFrom(...MUTATIONS), (r, at, how, unit) => {
      // Mutations inside the repeated copy and the operations are the interesting ones: aimed there half of the time.
      expectSound(mutateRecord(records[r % records.length]!, at, how, unit));
    }), { numRuns: 4000, seed: 7 });
  });

  it('a repeat whose copy would pass the nesting limit is scanned, and refused like the slow path refuses it', () => {
    // `ops` nested to `depth` inside the operations (depth 1) and inside request.parameters.nodes (depth 3).
    const nest = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    const record = (depth: number): string => `{"operations":${nest(depth)},"request":{"parameters":{"nodes":${nest(depth)}}}}`;
    // The copy's innermost value sits at depth 3 + depth: canonical up to the limit, not past it.
    const fits = NESTING_LIMIT - 3;
    expect(slowCanonical(record(fits))).toBe(true);
    expect(canonicalRecordSpans(record(fits))?.repeats).toBe('nodes');
    expectAgrees(record(fits));
    expect(slowCanonical(record(fits + 1))).toBe(false);
    expect(canonicalRecordSpans(record(fits + 1))).toBeNull();
    expect(canonicalRecordSpans(`{"operations":${nest(NESTING_LIMIT)},"request":{}}`)).toBeNull();
  });

  it('a copy that differs is scanned on its own: a non-canonical spelling in it is refused', () => {
    const text = records.find((t) => canonicalRecordSpans(t)?.repeats === 'nodes')!;
    const at = text.lastIndexOf('"priority":');
    const spoiled = `${text.slice(0, at)}"priority":01${text.slice(at + '"priority":1'.length)}`;
    expect(slowCanonical(spoiled)).toBe(false);
    expect(canonicalRecordSpans(spoiled)).toBeNull();
  });
});

/** The spans as a Map would answer them: every key the slow path names, absent keys, and the iterators. */
function expectMapLike(spans: MemberSpans, text: string): void {
  const map = new Map([...spans]);
  expect(spans.size).toBe(map.size);
  expect([...spans.keys()]).toEqual([...map.keys()]);
  expect([...spans.values()]).toEqual([...map.values()]);
  expect([...spans.entries()]).toEqual([...map.entries()]);
  const seen: unknown[] = [];
  spans.forEach((span, key, self) => seen.push([key, span, self === spans]));
  expect(seen).toEqual([...map].map(([k, v]) => [k, v, true]));
  for (const key of map.keys()) {
    expect(spans.get(key)).toEqual(map.get(key));
    expect(spans.has(key)).toBe(true);
    // A key's prefix, extension and neighbours are other keys: absent unless the record has them.
    for (const other of [key.slice(0, -1), `${key}s`, `${key.slice(0, -1)}x`, '', 'actor', 'operations', 'request', 'parameters', 'nodes']) {
      expect(spans.get(other), `${other} in ${text.slice(0, 80)}`).toEqual(map.get(other));
      expect(spans.has(other)).toBe(map.has(other));
    }
  }
}

/** Records with non-ASCII, escaped and astral string values (and keys below the top level). */
function unusual(text: string, how: number): string {
  const spellings = ['"owner/rép😀"', '"a\\"b\\\\c"', '"tab\\t\\u001f"', '"\u2028\u00e9"', '"é"'];
  const at = text.indexOf('"owner/repo"');
  const value = spellings[how % spellings.length]!;
  if (how % 2 === 0 && at >= 0) return text.slice(0, at) + value + text.slice(at + '"owner/repo"'.length);
  const key = text.indexOf('"principal"');
  return key < 0 ? text : `${text.slice(0, key)}"é_pal"${text.slice(key + '"principal"'.length)}`;
}

describe('the spans of a proven record answer as a Map', () => {
  const records = lines(generateLedger(200 * 1024, 4).text);

  it('on every record of a generated ledger, at every level', () => {
    for (const text of records) {
      const r = canonicalRecordSpans(text, true)!;
      for (const spans of [r.members, r.request, r.parameters]) if (spans !== null) expectMapLike(spans, text);
    }
  });

  it('on records with non-ASCII, escaped or astral strings: the same verdict and spans as the slow path', () => {
    fc.assert(fc.property(fc.nat(), fc.nat(), (r, how) => {
      const text = unusual(records[r % records.length]!, how);
      expectSound(text);
      const got = canonicalRecordSpans(text);
      if (got !== null) for (const spans of [got.members, got.request, got.parameters]) if (spans !== null) expectMapLike(spans, text);
    }), { numRuns: 500, seed: 13 });
  });
});

const REFERENCE = ['gh-aw-generated/ledger-1m.jsonl', 'gh-aw-generated/ledger-16m.jsonl'].map((p) => new URL(p, REFERENCE_ROOT));
describe.skipIf(referenceSkip(REFERENCE.every((u) => existsSync(fileURLToPath(u)))))('canonicalRecordSpans on the reference-written ledgers', () => {
  it('every record: the same spans as the slow path, the repeat found wherever the texts are equal', () => {
    let n = 0;
    for (const url of REFERENCE) {
      for (const text of lines(readFileSync(url, 'utf8'))) {
        expectAgrees(text);
        n += 1;
      }
    }
    expect(n).toBeGreaterThan(8000);
  });
});
