/**
 * Replay applies a committed grant's clock transitions without materializing the active set of
 * a step that a later Claim of the same commit replaces (`supersededSteps`, `applyTransition`'s
 * `superseded`). Differential test on real ledgers: at every grant of generated and
 * reference-written ledgers, the pool's clocks after replaying the commit equal the clocks
 * obtained by applying every planned transition in order with its full active set (spec 7.5
 * `pick`, one step per admitted Claim).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { appendBytes, replayBytes } from '../../tests/support/bytes.ts';
import { describeReference, missingReference, REFERENCE_ROOT } from '../../tests/support/reference.ts';
import { applyTransition, clockView, forkPool, type ClockTransition } from '../scheduler/clocks.ts';
import { packGrant } from '../scheduler/pack.ts';
import { supersededSteps } from './grant.ts';
import type { Projection } from './projection.ts';

interface GrantLine {
  request: { id: string; kind: string; parameters: { pool: string; max_claims: number; max_dispatches: number; max_bytes: number } };
  id: string;
  at: number;
  operations: Array<{ kind: string }>;
}

/** Replays `ledger` line by line and compares the clocks after every grant; returns [grants, grants with a superseded step]. */
function checkEveryGrant(ledger: string): [number, number] {
  let projection: Projection | null = null;
  let grants = 0;
  let skipped = 0;
  for (const text of ledger.split('\n').filter((l) => l.length > 0)) {
    const line = JSON.parse(text) as GrantLine;
    if (projection === null || line.request.kind !== 'dispatch_next') {
      projection = projection === null ? replayBytes(`${text}\n`) : appendBytes(projection, `${text}\n`);
      continue;
    }
    const state = projection.state;
    const p = line.request.parameters;
    const firstClaim = line.operations.findIndex((op) => op.kind === 'Claim');
    const plan = packGrant(state, { requestId: line.request.id, commitId: line.id, pool: p.pool, max_claims: p.max_claims, max_dispatches: p.max_dispatches, max_bytes: p.max_bytes, precedingOperations: firstClaim }, line.at);
    // The committed Observations come first; none of these ledgers moves a clock with them.
    const sequential = forkPool(state.fairness, p.pool);
    plan.transitions.forEach((t: ClockTransition) => applyTransition(sequential, t));
    const expected = clockView(sequential, p.pool);
    projection = appendBytes(projection, `${text}\n`);
    expect(clockView(projection.state.fairness, p.pool)).toEqual(expected);
    grants += 1;
    if (supersededSteps(plan.transitions).some(Boolean)) skipped += 1;
  }
  return [grants, skipped];
}

describe('replay applies grant transitions without superseded active sets', () => {
  it('marks a step superseded only when a later step moves the same key clock', () => {
    const t = (priority: number): ClockTransition => ({ pool: 'default', priority }) as ClockTransition;
    expect(supersededSteps([t(1), t(2), t(1), t(3), t(2)])).toEqual([true, true, false, false, false]);
    expect(supersededSteps([])).toEqual([]);
  });

  it('ends with the same clocks as applying every step with its active set, at every grant of generated ledgers', () => {
    let grants = 0;
    let skipped = 0;
    for (const seed of [1, 2, 3]) {
      const [g, s] = checkEveryGrant(generateLedger(300 * 1024, seed).text);
      grants += g;
      skipped += s;
    }
    expect(grants).toBeGreaterThan(4);
    expect(skipped).toBeGreaterThan(0);
  });
});

const REFERENCE_LEDGER = 'gh-aw-generated/ledger-1m.jsonl';
describeReference(missingReference([REFERENCE_LEDGER]).length === 0, 'grant transitions on the reference-written ledger', () => {
  it('ends with the same clocks as applying every step with its active set, at every grant of ledger-1m.jsonl', () => {
    const [grants] = checkEveryGrant(readFileSync(new URL(REFERENCE_LEDGER, REFERENCE_ROOT), 'utf8'));
    expect(grants).toBeGreaterThan(0);
  });
});
