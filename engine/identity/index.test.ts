import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isProtocolError, ProtocolError } from '../errors.ts';
import type { JsonValue } from '../json.ts';
import { splitLedger } from '../codec/lines.ts';
import { parseLedgerLine } from '../../tests/support/bytes.ts';
import { sha256Hex } from '../codec/digest.ts';
import { canonicalize } from '../codec/json.ts';
import { candidateCommitId, checkpointRequestId, claimHandle, claimId, dispatchId, requestFingerprint, workId } from './index.ts';
import { referenceSkip } from '../../tests/support/reference.ts';

const REFERENCE = fileURLToPath(new URL('../../../shared/reference/', import.meta.url));
const FIXTURES = REFERENCE + 'gh-aw/specs/work-queue/fixtures/';
const LEDGERS = ['ledger-1m.jsonl', 'ledger-16m.jsonl'].map((f) => REFERENCE + 'gh-aw-generated/' + f);

// Just the envelope fields these checks read (spec 7.6).
interface Op {
  kind: string;
  work_id?: string;
  graph_id?: string;
  node_key?: string;
  claim_id?: string;
  dispatch_id?: string;
  handle?: string;
}
interface Commit {
  id: string;
  previous: string | null;
  actor: JsonValue;
  request: { id: string; kind: string; parameters: JsonValue & { nodes?: Op[] }; fingerprint: string };
  operations: Op[];
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProtocolError) return e.code;
    throw e;
  }
  return undefined;
}

/** Count of each identity check that ran, so a test can assert it saw the data. */
interface Tally { fingerprints: number; works: number; claims: number }

/** Recompute every derived identity of one commit, counting the checks in `tally`. */
function checkCommit(c: Commit, tally: Tally): void {
  expect(c.request.fingerprint, `fingerprint of ${c.id}`).toBe(requestFingerprint(c.actor, c.request.kind, c.request.parameters));
  tally.fingerprints++;
  for (const op of [...c.operations, ...(c.request.parameters.nodes ?? [])]) {
    if (op.kind !== 'Work') continue;
    expect(op.work_id, `work_id in ${c.id}`).toBe(workId(op.graph_id!, op.node_key!));
    tally.works++;
  }
  // Claims: k-th Claim of the commit = fair-prefix index k; groups open in order 1, 2, ...;
  // handle = one-based position inside its group.
  const members = new Map<number, number>();
  let k = 0;
  for (const op of c.operations) {
    if (op.kind !== 'Claim') continue;
    k++;
    expect(op.claim_id).toBe(claimId(c.request.id, k));
    const group = Number(/_([1-9][0-9]*)$/.exec(op.dispatch_id!)?.[1]);
    expect(group).toBeLessThanOrEqual(members.size + 1);
    expect(op.dispatch_id).toBe(dispatchId(c.request.id, group));
    members.set(group, (members.get(group) ?? 0) + 1);
    expect(op.handle).toBe(claimHandle(members.get(group)!));
    tally.claims++;
  }
}

describe('identity formulas', () => {
  it('derive IDs from SHA-256 of canonical JSON / UTF-8 text', () => {
    expect(workId('g', 'n')).toBe(sha256Hex('{"graph_id":"g","node_key":"n"}'));
    expect(requestFingerprint({ role: 'x' }, 'submit', { b: 1, a: [] })).toBe(
      sha256Hex('{"actor":{"role":"x"},"kind":"submit","parameters":{"a":[],"b":1}}'),
    );
    const r = sha256Hex('r-é');
    expect(claimId('r-é', 3)).toBe(`c_${r}_3`);
    expect(dispatchId('r-é', 1)).toBe(`d_${r}_1`);
    expect(claimHandle(16)).toBe('h16');
    expect(candidateCommitId('q_tip', 'r')).toBe(`q_${sha256Hex('q_tip\nr')}`);
    expect(candidateCommitId(null, 'r')).toBe(`q_${sha256Hex('r')}`);
    expect(checkpointRequestId('tip', 'abc')).toBe(`checkpoint_${sha256Hex('tip\nabc')}`);
  });
  it('reject indices that are not one-based positive integers', () => {
    for (const bad of [0, -1, 1.5, NaN, Infinity]) {
      for (const fn of [() => claimId('r', bad), () => dispatchId('r', bad), () => claimHandle(bad)]) {
        expect(codeOf(fn)).toBe('invalid_argument');
      }
    }
  });
  it('workId writes the same canonical text as canonicalize({graph_id, node_key}), with the same errors', () => {
    const exact = (g: string, n: string): string => sha256Hex(canonicalize({ graph_id: g, node_key: n }));
    const answer = (run: () => string): unknown => {
      try {
        return run();
      } catch (e) {
        if (!isProtocolError(e)) throw e;
        return { code: e.code, message: e.message };
      }
    };
    const keys = ['', 'g', 'n-0', 'é', '😀', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', 'a\udc00', '\udbff\udfff', 'g'.repeat(300)];
    for (const g of keys) for (const n of keys) expect(answer(() => workId(g, n))).toEqual(answer(() => exact(g, n)));
    fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (g, n) => {
      expect(answer(() => workId(g, n))).toEqual(answer(() => exact(g, n)));
    }), { numRuns: 2000 });
  });
  it('propagate codec errors', () => {
    expect(codeOf(() => requestFingerprint({}, 'k', { n: 0.5 }))).toBe('noncanonical_number');
    expect(codeOf(() => workId('g', '\ud800'))).toBe('invalid_unicode');
    expect(codeOf(() => claimId('\udc00', 1))).toBe('invalid_unicode');
  });
});

for (const path of LEDGERS) {
  describe.skipIf(referenceSkip(existsSync(path)))(`reference ledger ${path} (skipped when absent)`, () => {
    it('every fingerprint, work_id, Claim identity and commit ID recomputes', () => {
      const commits = splitLedger(readFileSync(path)).map((l) => parseLedgerLine(l.text) as unknown as Commit);
      const tally: Tally = { fingerprints: 0, works: 0, claims: 0 };
      let tip: string | null = null;
      for (const c of commits) {
        expect(c.previous).toBe(tip);
        expect(c.id, `candidate ID of ${c.id}`).toBe(candidateCommitId(tip, c.request.id));
        checkCommit(c, tally);
        tip = c.id;
      }
      expect(tally.fingerprints).toBe(commits.length);
      expect(tally.works).toBeGreaterThan(200);
      expect(tally.claims).toBeGreaterThan(200);
    });
  });
}

describe.skipIf(referenceSkip(existsSync(FIXTURES)))(`reference fixtures (needs ${FIXTURES})`, () => {
  const load = <T,>(name: string): T => JSON.parse(readFileSync(FIXTURES + name, 'utf8')) as T;

  it('canonical-prefix.json: fingerprints, work_ids and Claims recompute (commit IDs there are opaque)', () => {
    const { commits } = load<{ commits: Commit[] }>('canonical-prefix.json');
    const tally: Tally = { fingerprints: 0, works: 0, claims: 0 };
    for (const c of commits) checkCommit(c, tally);
    expect(tally).toEqual({ fingerprints: 17, works: 10, claims: 3 });
  });
  it('checkpoint.json: history identities, and checkpoint commit and request IDs', () => {
    const fx = load<{ prior_git_sha: string; history: Commit[]; checkpoint: Commit[]; genesis_checkpoint: Commit[] }>('checkpoint.json');
    const tally: Tally = { fingerprints: 0, works: 0, claims: 0 };
    for (const c of fx.history) checkCommit(c, tally);
    for (const c of [...fx.checkpoint, ...fx.genesis_checkpoint]) {
      checkCommit(c, tally);
      const p = c.request.parameters as { prior_tip: string; prior_git_sha: string };
      expect(p.prior_git_sha).toBe(fx.prior_git_sha);
      expect(c.request.id).toBe(checkpointRequestId(p.prior_tip, p.prior_git_sha));
      expect(c.previous).toBeNull(); // a checkpoint is a root commit
      expect(c.id).toBe(candidateCommitId(null, c.request.id));
    }
    expect(tally.fingerprints).toBe(5);
    expect(tally.works).toBeGreaterThan(0);
    expect(tally.claims).toBeGreaterThan(0);
  });
});
