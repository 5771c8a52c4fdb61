/**
 * Replay's per-line text path (framing, the per-record decode with its ASCII fast path, the
 * one-pass canonical proof and its spans, the envelope checks on those spans) against the exact
 * path: a ledger handed over as text is split whole and checked without spans (the general
 * envelope checks in apply.ts). Bytes (a Buffer, a Uint8Array view at an offset) and text must
 * give the same projection, and the same error (code, message, line) for a spoiled record,
 * ASCII or not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { requestFingerprint } from '../identity/index.ts';
import type { JsonValue } from '../json.ts';
import { replayLedger, summarize } from './index.ts';

const encoder = new TextEncoder();

/** What replay answers: the projection's summary and commit texts, or the error. */
function outcome(input: Uint8Array | string): unknown {
  try {
    const p = replayLedger(input);
    return { tip: p.tip, commits: p.commitCount, summary: summarize(p), texts: p.state.commits.map((c) => p.commitText(c.id)) };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, message: e.message, line: e.line, commit: e.commit };
  }
}

/** The same bytes as a Uint8Array view at an odd offset of a larger buffer (not a Buffer). */
function atOffset(bytes: Uint8Array): Uint8Array {
  const backing = new Uint8Array(bytes.length + 7);
  backing.set(bytes, 3);
  return new Uint8Array(backing.buffer, 3, bytes.length);
}

function expectSameAnswers(text: string, bytes: Uint8Array = encoder.encode(text)): unknown {
  const exact = outcome(text);
  expect(outcome(Buffer.from(bytes))).toEqual(exact);
  expect(outcome(atOffset(bytes))).toEqual(exact);
  return exact;
}

/** Spoilings of one record: non-ASCII, escapes, whitespace, a changed digit, a repeat that differs. */
const SPOIL: ReadonlyArray<(line: string) => string> = [
  (l) => l.replace('"owner/repo"', '"owner/rép😀"'),
  (l) => l.replace('"owner/repo"', '"owner/\\u0072epo"'),
  (l) => l.replace('"owner/repo"', '"owner/\\"repo"'),
  (l) => l.replace('":', '": '),
  (l) => l.replace(/"at":(\d)/, '"at":0$1'),
  (l) => l.replace(/"priority":(\d+)/g, (m, d: string, at: number) => (at > l.indexOf('"parameters"') ? `"priority":${Number(d) + 1}` : m)),
  (l) => l.replace(/("kind":"Work")/, '$1 '),
  (l) => `${l.slice(0, -1)},"zz":"é"}`,
  // Parameters that no longer repeat the operations (or repeat them in another spelling), under
  // a fingerprint recomputed to match: only the parameters binding can refuse them.
  (l) => refingerprinted(l, (p) => (Array.isArray(p.nodes) ? { nodes: [...p.nodes, ...p.nodes.slice(0, 1)] } : p)),
  (l) => refingerprinted(l, (p) => (Array.isArray(p.operations) ? { operations: p.operations.slice(1) } : p)),
  (l) => refingerprinted(l, (p) => (Array.isArray(p.nodes) ? { nodes: p.nodes, extra: 'é' } : p)),
];

type Parameters = { nodes?: JsonValue[]; operations?: JsonValue[] } & Record<string, JsonValue>;

function refingerprinted(line: string, change: (p: Parameters) => JsonValue): string {
  const record = JSON.parse(line) as { actor: JsonValue; request: { kind: string; parameters: Parameters; fingerprint: string } };
  const { request } = record;
  request.parameters = change(request.parameters) as Parameters;
  request.fingerprint = requestFingerprint(record.actor, request.kind, request.parameters);
  return canonicalize(record as unknown as JsonValue);
}

describe('replay from bytes ≡ replay from text (the exact envelope checks)', () => {
  const ledger = generateLedger(96 * 1024, 5).text;
  const lines = ledger.split('\n').filter((l) => l.length > 0);

  it('a generated ledger: the same projection from text, a Buffer and a Uint8Array view', () => {
    const exact = expectSameAnswers(ledger) as { commits: number };
    expect(exact.commits).toBe(lines.length);
  });

  it('one record spoiled (non-ASCII, escaped, spaced, renumbered, its parameters changed): the same projection or the same error', () => {
    fc.assert(fc.property(fc.nat(), fc.nat(), (k, how) => {
      const out = [...lines];
      out[k % out.length] = SPOIL[how % SPOIL.length]!(out[k % out.length]!);
      expectSameAnswers(`${out.join('\n')}\n`);
    }), { numRuns: 60, seed: 13 });
  });

  it('a record with invalid UTF-8: invalid_unicode at its line; a valid non-ASCII record: the text path\'s answer', () => {
    const k = Math.floor(lines.length / 2);
    const head = encoder.encode(`${lines.slice(0, k).join('\n')}\n`);
    const record = encoder.encode(lines[k]!);
    const tail = encoder.encode(`\n${lines.slice(k + 1).join('\n')}\n`);
    for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc3, 0xa9]]) {
      const spoiled = new Uint8Array(head.length + record.length + bad.length + tail.length);
      const at = head.length + Math.floor(record.length / 2);
      spoiled.set(head);
      spoiled.set(record.subarray(0, at - head.length), head.length);
      spoiled.set(bad, at);
      spoiled.set(record.subarray(at - head.length), at + bad.length);
      spoiled.set(tail, head.length + record.length + bad.length);
      const answers = [outcome(Buffer.from(spoiled)), outcome(atOffset(spoiled))];
      if (bad[0] === 0xc3 && bad[1] === 0xa9) {
        const exact = expectSameAnswers(new TextDecoder().decode(spoiled), spoiled) as { code?: string };
        expect(exact.code).toBeDefined();
      } else {
        for (const a of answers) expect(a).toMatchObject({ code: 'invalid_unicode', line: k + 1 });
      }
    }
  });
});
