/**
 * The ledger budget's owed reserve (ledger-budget.ts) is kept incrementally: each commit
 * recomputes only the contributions its operations can have changed. Checked against the
 * definition after every commit of generated and reference-written ledgers: every Work's and
 * every dispatch group's contribution, and their sum, equal a fresh computation over the whole
 * state (so no contribution the incremental path skips was stale).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { REFERENCE_ROOT, referenceSkip } from '../../tests/support/reference.ts';
import type { ReplayState } from '../state/state.ts';
import { appendLedger, emptyProjection } from './index.ts';
import { dispatchReserve, workReserve } from './ledger-budget.ts';

function expectFresh(state: ReplayState, line: number): void {
  const budget = state.budget!;
  let reserve = 0;
  for (const work of state.works.values()) {
    const owed = workReserve(state, work);
    reserve += owed;
    if ((budget.works.get(work) ?? 0) !== owed) expect({ line, work: work.workId, kept: budget.works.get(work) ?? 0 }).toEqual({ line, work: work.workId, kept: owed });
  }
  for (const group of state.dispatches.values()) {
    const owed = dispatchReserve(state, group);
    reserve += owed;
    if ((budget.groups.get(group) ?? 0) !== owed) expect({ line, group: group.dispatchId, kept: budget.groups.get(group) ?? 0 }).toEqual({ line, group: group.dispatchId, kept: owed });
  }
  expect(budget.works.size).toBeLessThanOrEqual(state.works.size);
  expect(budget.groups.size).toBeLessThanOrEqual(state.dispatches.size);
  if (budget.reserve !== reserve) expect({ line, reserve: budget.reserve }).toEqual({ line, reserve });
}

/** Appends the ledger one record at a time (the replay path), checking the budget after each. */
function checkEveryCommit(bytes: Buffer): number {
  const projection = emptyProjection();
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start) + 1;
    appendLedger(projection, bytes.subarray(start, end));
    line++;
    expectFresh(projection.state, line);
    start = end;
  }
  return line;
}

describe('the owed reserve after every commit ≡ a fresh computation', () => {
  it('generated ledgers', () => {
    for (const [size, seed] of [[1024 * 1024, 1], [2 * 1024 * 1024, 5]] as const) {
      expect(checkEveryCommit(Buffer.from(generateLedger(size, seed).text))).toBeGreaterThan(200);
    }
  });

  const reference = ['gh-aw-generated/ledger-1m.jsonl', 'gh-aw-generated/ledger-16m.jsonl'].map((p) => new URL(p, REFERENCE_ROOT));
  it.skipIf(referenceSkip(reference.every((u) => existsSync(u))))('reference-written ledgers', () => {
    for (const url of reference) expect(checkEveryCommit(readFileSync(url))).toBeGreaterThan(200);
  }, 120_000);
});
