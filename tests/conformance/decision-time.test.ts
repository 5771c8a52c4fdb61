/**
 * A commit's `at` earlier than its predecessor's (the third undecided replay behaviour).
 *
 * The spec states no ordering between commits' decision times: `at` is the "Trusted decision
 * timestamp used for retry eligibility and diagnostics" (7.6 envelope table); causal order is the
 * `previous` chain, and "Commit ordinal is derived from this chain; it is not a timestamp" (7.6);
 * 8.1 even replays "client timestamps deliberately out of order" ("timestamp backdating does not
 * overtake"). The reference replayers (gh-aw work_queue_replay.cjs replayTransactions /
 * causalChain, pkg/workqueue replay.go Replay / causalOrder) compare `at` only with facts inside
 * the same commit (evidence `checked_at`, Observation `observed_at`), never with the parent's.
 * So replay adds no monotonicity rule: a backdated commit replays, and each decision is judged
 * at its own `at`. These tests fail if such a rule is ever added.
 */
import { describe, expect, it } from 'vitest';
import { submitRequest } from '../../engine/requests/operations.ts';
import { dispatcher, nodes, policyOf, producer, TestQueue } from '../acceptance/queue.ts';
import { byteVerdict, forgeBuilt } from './forbidden.ts';
import { replayBothWays } from '../support/verified-replay.ts';

const GRANT = { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 };

describe('spec 7.6 `at` is no causal order: replay accepts a commit dated before its parent (spec silent; the reference accepts)', () => {
  it('a submit dated a minute before its parent replays, and its backdated Work does not overtake the Work committed first (8.1)', () => {
    const q = new TestQueue(policyOf(), nodes('first', 1, ''));
    const parentAt = q.tick();
    q.submit([{ node_key: 'second', payload: {} }], { at: parentAt });
    const backdated = parentAt - 60_000;
    const late = submitRequest(q.state, [{ node_key: 'third', payload: {} }], { graphId: 'g', at: backdated });
    const bytes = forgeBuilt(q, 'backdated', producer, backdated, late);
    expect(byteVerdict(bytes)).toBe('accepted');
    const commits = replayBothWays(bytes).state.commits;
    expect(commits.at(-1)!.at).toBeLessThan(commits.at(-2)!.at);

    // The same commit written by the engine's writer, then grants: causal FIFO, not timestamps.
    q.w.publish('backdated', producer, backdated, late);
    const granted = [1, 2, 3].map((i) => q.keys(q.w.dispatchNext(`grant-${i}`, dispatcher, q.tick(), GRANT).built.plan));
    expect(granted).toEqual([['first-1'], ['second'], ['third']]);
  });
});
