/**
 * Replay with a `RecordVerifier` (record.ts): a record whose verdict comes from the verifier is
 * only parsed; every other record is checked inline. Whichever records the verifier answers,
 * replay gives the same projection and, on a spoiled ledger, the same first error (code,
 * message, line) as replay without one, and it closes the verdicts once either way.
 */
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { isProtocolError } from '../errors.ts';
import { replayLedger, summarize } from './index.ts';
import { InlineVerifier } from '../../tests/support/verified-replay.ts';
import { verifiedCommit, verifyRecord, type RecordVerifier } from './record.ts';

const encoder = new TextEncoder();
const { text } = generateLedger(160 * 1024, 7);
const LINES = text.split('\n').slice(0, -1);
const OTHER_GENESIS = generateLedger(4 * 1024, 8).text.split('\n')[0]!;

/**
 * A value as replay holds it, beyond what toEqual compares: each object's key order and whether
 * it has a prototype (the schema's parse builds prototype-free maps, in its own key order).
 */
function shapeOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shapeOf);
  if (v === null || typeof v !== 'object') return v;
  return { prototype: Object.getPrototypeOf(v) === null ? 'none' : 'Object', members: Object.entries(v).map(([k, x]) => [k, shapeOf(x)]) };
}

function outcome(bytes: Uint8Array, verifier?: RecordVerifier): unknown {
  try {
    const p = replayLedger(bytes, undefined, verifier);
    return {
      tip: p.tip,
      commits: p.commitCount,
      summary: summarize(p),
      texts: p.state.commits.map((c) => p.commitText(c.id)),
      policy: shapeOf(p.policy),
      policyHistory: shapeOf(p.policyHistory),
      works: shapeOf([...p.works()].slice(0, 20)),
    };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, message: e.message, line: e.line, commit: e.commit, operation: e.operation };
  }
}

const PICKS: Record<string, (n: number) => boolean> = {
  every: () => true,
  none: () => false,
  even: (n) => n % 2 === 0,
  'all but the first 10': (n) => n >= 10,
};

describe('replay with a RecordVerifier', () => {
  it('gives the projection replay gives alone, whichever records the verifier answers', () => {
    const bytes = encoder.encode(text);
    const alone = outcome(bytes);
    expect(alone).toMatchObject({ commits: LINES.length });
    for (const [name, pick] of Object.entries(PICKS)) {
      const verifier = new InlineVerifier(pick);
      expect(outcome(bytes, verifier), name).toEqual(alone);
      expect([verifier.opened, verifier.closed], name).toEqual([1, 1]);
      if (name !== 'none') expect(verifier.answered, name).toBeGreaterThan(0);
    }
  });

  it('answers as replay alone does on spoiled ledgers: the first error (a record the verifier fails, or an earlier fold error), or an unverified envelope', () => {
    const late = Math.floor(LINES.length * 0.8);
    const spoilings: Array<[string, string[]]> = [
      // Accepted, with its envelope unverified (no canonical spans): the verifier's verdict must say so too.
      ['non-canonical spacing', LINES.map((l, i) => (i === late ? l.replace('":', '": ') : l))],
      ['unsupported version', LINES.map((l, i) => (i === late ? l.replace('"version":3', '"version":4') : l))],
      ['a schema violation', LINES.map((l, i) => (i === late ? l.replace(/"at":(\d+)/, '"at":"$1"') : l))],
      ['invalid UTF-8 is framed as bytes', LINES.map((l, i) => (i === late ? l.replace('"owner/repo"', '"owner/r\udc80po"') : l))],
      // A record whose own checks pass but whose fold fails (another ledger's genesis), before the spoiled one.
      ['a fold error first', [...LINES.slice(0, 5), OTHER_GENESIS, ...LINES.slice(5, late), LINES[late]!.replace('":', '": '), ...LINES.slice(late + 1)]],
    ];
    for (const [name, lines] of spoilings) {
      const bytes = Buffer.from(`${lines.join('\n')}\n`, name.startsWith('invalid UTF-8') ? 'latin1' : 'utf8');
      const alone = outcome(bytes) as { code?: string; line?: number };
      if (name === 'non-canonical spacing') expect(alone.code, name).toBeUndefined();
      else expect([alone.code, alone.line], name).toEqual([expect.any(String), name === 'a fold error first' ? 6 : late + 1]);
      for (const [pickName, pick] of Object.entries(PICKS)) {
        const verifier = new InlineVerifier(pick);
        expect(outcome(bytes, verifier), `${name}, ${pickName}`).toEqual(alone);
        expect(verifier.closed, `${name}, ${pickName}`).toBe(1);
      }
    }
  });

  it('leaves to replay a record that is not canonical JSON (the strict parser reads it) or that the schema parses into a new value (a Policy)', () => {
    const genesis = encoder.encode(LINES[0]!);
    expect(LINES[0]).toContain('"kind":"Policy"');
    expect(verifyRecord(genesis, 0, genesis.length)).toBeNull();
    const line = LINES[3]!;
    const canonical = encoder.encode(line);
    expect(verifyRecord(canonical, 0, canonical.length)).toEqual({ verdict: { fingerprintVerified: expect.any(Boolean), parametersVerified: expect.any(Boolean) }, repeat: expect.anything(), measures: expect.objectContaining({ workIdsVerified: true, evidenceBytes: 0, descriptorBytes: 0 }) });
    const spaced = encoder.encode(line.replace('":', '": '));
    expect(verifyRecord(spaced, 0, spaced.length)).toBeNull();
  });

  it('answers where a record\'s parameters repeat its operations, and the commit replay reads from that is JSON.parse of the record', () => {
    let repeated = 0;
    for (const line of LINES) {
      const bytes = encoder.encode(line);
      const verified = verifyRecord(bytes, 0, bytes.length);
      if (verified === null) continue;
      expect(verifiedCommit(line, verified.repeat)).toEqual(JSON.parse(line));
      if (verified.repeat === null) continue;
      repeated += 1;
      const { start, end, name } = verified.repeat;
      const ops = (JSON.parse(line) as { operations: unknown }).operations;
      expect(line.slice(start, end)).toBe(`{"${name}":${JSON.stringify(ops)}}`);
    }
    expect(repeated).toBeGreaterThan(LINES.length / 3);
  });

  it('is not asked about text input, which has no byte frames', () => {
    const verifier = new InlineVerifier(() => true);
    replayLedger(text, undefined, verifier);
    expect(verifier.opened).toBe(0);
  });
});
