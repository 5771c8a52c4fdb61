/**
 * Spec §7.18 walkthroughs ("Operator accidentally stops a run", "Agent crashes, loses
 * connectivity, or cannot start", "Campaign is revised while work is in flight") end to end
 * through the real `fairway` CLI (`--json --dir`) on a real local Git queue and the
 * OpenAPI-validated GitHub stand-in, checking each walkthrough's "Operator-visible outcome".
 * The pools' retry backoff is 1 s, waited out for real (the CLI reads the system clock, and a
 * fake one moved back after a test would make later publications wait for it).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRun, setRunStatus } from '../fake-github/routes-actions.ts';
import { isolateBenchEnvironment } from '../support/lifecycle-bench.ts';
import { activateRun, finishMember, fw, human, launchNext, noJob, writeReceipts } from '../support/recovery-cli.ts';
import { countOps, createBench, dispatchPosts, nodes, type Bench } from './harness.ts';

let bench: Bench;
isolateBenchEnvironment(() => bench);
const RETRY = { max_attempts: 3, backoff_seconds: 1 };

/** Waits until every available Work's trusted retry backoff has passed. */
async function pastBackoff(b: Bench): Promise<void> {
  const p = await b.replayValid();
  const until = Math.max(0, ...[...p.state.works.values()].map((w) => Number(w.retryNotBefore ?? 0)));
  while (Date.now() <= until) await new Promise((r) => setTimeout(r, 20));
}

describe('§7.18 walkthroughs through the CLI', () => {
  it('operator accidentally stops a run: the cancel request keeps the slot; on exact terminal evidence the native cancelled conclusion and each Claim\'s outcome show separately; Re-run gets no authority; the open member gets a new fair Claim', async () => {
    bench = await createBench({ maxClaims: 3, nodes: nodes('c1', 'c2', 'c3'), retry: RETRY });
    const l = await launchNext(bench, 'dispatch-run-1', 3);
    const { dispatch_id: d, run_id: run } = l.json.launches[0];
    const a = await activateRun(bench, run);
    const [c1, c2, c3] = a.json.assignment.claims.map((c: { claim_id: string }) => c.claim_id) as [string, string, string];
    await finishMember(bench, run, d, 'h1', 'completed');
    await finishMember(bench, run, d, 'h3', 'cancelled');
    noJob();
    const dir = mkdtempSync(join(bench.dir, 'receipts-'));
    expect((await fw(bench, 'result', '--claim-id', c1, '--evidence', writeReceipts(dir, d, c1, run))).json).toMatchObject({ outcome: 'result', verified: true });
    // Cancelling the worker is a request, not termination: the slot is kept.
    const requested = await fw(bench, 'reconcile', '--dispatch-id', d, '--cancel-running', '--interval-ms', '0');
    expect(requested.json.reconciled).toEqual([expect.objectContaining({ outcome: 'running', state: 'bound', cancel_requested: true, conclusion: null, next_action: expect.stringContaining('slot is kept') })]);
    expect(countOps(await bench.replayValid(), 'Release')).toBe(0);
    setRunStatus(bench.fake.state, run, 'completed', 'cancelled');
    const released = await fw(bench, 'reconcile', '--dispatch-id', d, '--interval-ms', '0');
    expect(released.json.reconciled).toEqual([expect.objectContaining({ outcome: 'released', run_id: run, conclusion: 'cancelled' })]);
    const ev = await fw(bench, 'evidence', '--dispatch-id', d);
    expect(ev.json.groups[0]).toMatchObject({
      state: 'released',
      claims: [
        { claim_id: c1, claim: 'completed', cancel_reason: null, work: 'completed', barrier: 'verified' },
        { claim_id: c2, claim: 'cancelled', cancel_reason: 'run_terminal', work: 'available' },
        { claim_id: c3, claim: 'cancelled', cancel_reason: 'worker_cancelled', work: 'available' },
      ],
    });
    expect(ev.json.groups[0].events.at(-1)).toMatchObject({ state: 'released', role: 'reconciler', run_id: run, conclusion: 'cancelled' });
    const text = (await human(bench, 'evidence', '--dispatch-id', d)).out;
    expect(text).toContain('native run conclusion: cancelled (not a Claim outcome)');
    expect(text).toMatch(/h2 \S+ {2}claim cancelled \(run_terminal\)/);
    expect(text).toMatch(/h3 \S+ {2}claim cancelled \(worker_cancelled\)/);
    // GitHub's Re-run button is not a queue retry.
    findRun(bench.fake.state, run)!.attempts.push({ status: 'in_progress', conclusion: null, updatedAt: '2026-01-01T00:00:00Z' });
    const rerun = await activateRun(bench, run, 2);
    expect(rerun).toMatchObject({ code: 3, json: { ok: false, error: { code: 'run_attempt_invalid' } } });
    expect(rerun.json.error.message).toMatch(/fresh fair Claim/);
    // After the backoff: a new fair Claim and a new dispatch binding for the open members.
    await pastBackoff(bench);
    const again = await launchNext(bench, 'dispatch-run-2', 3);
    expect(again.json.launches).toEqual([expect.objectContaining({ outcome: 'bound' })]);
    expect(again.json.launches[0].run_id).not.toBe(run);
    const p = await bench.replayValid();
    const regranted = p.dispatch(again.json.launches[0].dispatch_id)!.claimIds.map((c) => p.claim(c)!.workId).sort();
    expect(regranted).toEqual([p.claim(c2)!.workId, p.claim(c3)!.workId].sort());
    expect(p.work(p.claim(c1)!.workId)).toMatchObject({ state: 'completed', barrier: 'verified' });
    expect(countOps(p, 'Release', d)).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(2);
  });

  it('agent crashes after one Completion: the completed member is verified without rerunning effects, the open one is cancelled (run_terminal) and retried; on the last attempt the Work is cancelled attempts_exhausted; an unverifiable delivery ends in DeliveryFailure; inspect tells them apart', async () => {
    bench = await createBench({ maxClaims: 3, nodes: nodes('A', 'B', 'C'), retry: { max_attempts: 2, backoff_seconds: 1 } });
    const l = await launchNext(bench, 'dispatch-run-1', 3);
    const { dispatch_id: d, run_id: run } = l.json.launches[0];
    const a = await activateRun(bench, run);
    const [ca, cb, cc] = a.json.assignment.claims.map((c: { claim_id: string }) => c.claim_id) as [string, string, string];
    const [wa, wb, wc] = a.json.assignment.claims.map((c: { work_id: string }) => c.work_id) as [string, string, string];
    await finishMember(bench, run, d, 'h1', 'completed');
    await finishMember(bench, run, d, 'h3', 'completed');
    // The agent process dies; the wrap-up never finishes B; the run ends in failure.
    setRunStatus(bench.fake.state, run, 'completed', 'failure');
    noJob();
    const r = await fw(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(r.json.reconciled).toEqual([expect.objectContaining({ outcome: 'released', conclusion: 'failure', pending_barriers: [ca, cc] })]);
    // A: verified delivery -> Result, no GitHub write. C: receipts that cannot be verified -> guarded DeliveryFailure.
    const dir = mkdtempSync(join(bench.dir, 'receipts-'));
    writeReceipts(dir, d, ca, run);
    const writes = bench.fake.requests.filter((x) => x.method !== 'GET').length;
    const settled = await fw(bench, 'reconcile', '--all', '--receipts', dir, '--interval-ms', '0');
    expect(settled.json.deliveries).toEqual([expect.objectContaining({ claim_id: ca, outcome: 'result' }), expect.objectContaining({ claim_id: cc })]);
    expect(bench.fake.requests.filter((x) => x.method !== 'GET').length).toBe(writes);
    const failed = await fw(bench, 'delivery-failure', '--claim-id', cc, '--attempts', '5');
    expect(failed.code, JSON.stringify(failed.json)).toBe(0);
    let inspectA = await fw(bench, 'inspect', '--work-id', wa);
    expect(inspectA.json).toMatchObject({ state: 'completed', barrier: 'verified', attempts: 1 });
    expect((await fw(bench, 'inspect', '--work-id', wc)).json).toMatchObject({ state: 'completed', barrier: 'failed' });
    expect((await fw(bench, 'inspect', '--work-id', wb)).json).toMatchObject({
      state: 'available', attempts: 1, readiness: 'waiting', reason: 'retry_delayed', cancellation_reason: null,
      claims: [{ claim_id: cb, state: 'cancelled', cancel_reason: 'run_terminal', native_run: { released: true } }],
    });
    // Second (last) attempt of B: the agent cannot start (say, a configuration error); the run fails again.
    await pastBackoff(bench);
    const l2 = await launchNext(bench, 'dispatch-run-2', 3);
    const { dispatch_id: d2, run_id: run2 } = l2.json.launches[0];
    setRunStatus(bench.fake.state, run2, 'completed', 'failure');
    const r2 = await fw(bench, 'reconcile', '--dispatch-id', d2, '--interval-ms', '0');
    expect(r2.json.reconciled).toEqual([expect.objectContaining({ outcome: 'released', conclusion: 'failure' })]);
    const b = await fw(bench, 'inspect', '--work-id', wb);
    expect(b.json).toMatchObject({ state: 'cancelled', attempts: 2, cancellation_reason: 'attempts_exhausted' });
    inspectA = await fw(bench, 'inspect', '--work-id', wa);
    expect(inspectA.json).toMatchObject({ state: 'completed', barrier: 'verified' }); // the successful sibling survives
    const p = await bench.replayValid();
    expect(countOps(p, 'Result')).toBe(1);
    expect(countOps(p, 'DeliveryFailure')).toBe(1);
    expect(p.state.outstandingNative.get('default') ?? 0).toBe(0);
    expect(dispatchPosts(bench.fake)).toBe(2);
  });

  it('campaign revised while work is in flight: the obsolete r1 Work is cancelled explicitly, its reservation kept until the run is terminal; r2 nodes get new identities and positions under the same accounting key; explain/inspect tell the revisions apart', async () => {
    bench = await createBench({ nodes: [{ node_key: 'r1/prepare', payload: { plan: 'old' } }, { node_key: 'r1/analyze', payload: { plan: 'old' }, depends_on: [{ kind: 'work', node_key: 'r1/prepare' }] } as never] });
    const l = await launchNext(bench, 'dispatch-run-1');
    const { dispatch_id: d, run_id: run } = l.json.launches[0];
    const a = await activateRun(bench, run);
    const r1prepare = a.json.assignment.claims[0].work_id as string;
    noJob();
    const state = await fw(bench, 'state');
    expect(state.code).toBe(0);
    const r1analyze = [...(await bench.replayValid()).state.works.values()].find((w) => w.nodeKey === 'r1/analyze')!.workId;
    const cancelled = await fw(bench, '--request-id', 'obsolete-r1', 'cancel-work', '--work-id', `${r1prepare},${r1analyze}`, '--reason', 'campaign_revised');
    expect(cancelled.code, JSON.stringify(cancelled.json)).toBe(0);
    const file = join(mkdtempSync(join(bench.dir, 'r2-')), 'graph.json');
    writeFileSync(file, JSON.stringify([{ node_key: 'r2/prepare', payload: { plan: 'new' } }, { node_key: 'r2/analyze', payload: { plan: 'new' }, depends_on: [{ kind: 'work', node_key: 'r2/prepare' }] }]));
    const admitted = await fw(bench, '--request-id', 'admit-r2', 'submit-graph', '--file', file, '--graph-id', 'g');
    expect(admitted.code, JSON.stringify(admitted.json)).toBe(0);
    let p = await bench.replayValid();
    const r2prepare = [...p.state.works.values()].find((w) => w.nodeKey === 'r2/prepare')!;
    const old = p.work(r1prepare)!;
    expect(r2prepare.workId).not.toBe(old.workId);
    expect(r2prepare.fairnessKey).toBe(old.fairnessKey);
    expect(r2prepare.position).not.toEqual(old.position);
    // The operator sees each revision's node, the explicit cancellation and the kept reservation.
    const oldView = await fw(bench, 'inspect', '--work-id', r1prepare);
    expect(oldView.json).toMatchObject({ node_key: 'r1/prepare', state: 'cancelled', cancellation_reason: 'campaign_revised', claims: [{ state: 'cancelled', native_run: { released: false, dispatch_state: 'bound' } }] });
    expect((await fw(bench, 'inspect', '--work-id', r1analyze)).json).toMatchObject({ node_key: 'r1/analyze', state: 'cancelled', cancellation_reason: 'campaign_revised' });
    const explained = await fw(bench, 'explain', '--pool', 'default');
    expect(JSON.stringify(explained.json)).toContain(r2prepare.workId);
    const stats = await fw(bench, 'stats');
    expect(stats.json.pools[0]).toMatchObject({ native_outstanding: 1, logical_outstanding: 0 });
    // Still running: kept. Exact terminal evidence: released once, nothing cancelled twice.
    expect((await fw(bench, 'reconcile', '--all', '--interval-ms', '0')).json.reconciled).toEqual([expect.objectContaining({ dispatch_id: d, outcome: 'running' })]);
    setRunStatus(bench.fake.state, run, 'completed', 'cancelled');
    expect((await fw(bench, 'reconcile', '--all', '--interval-ms', '0')).json.reconciled).toEqual([expect.objectContaining({ dispatch_id: d, outcome: 'released', conclusion: 'cancelled' })]);
    const next = await launchNext(bench, 'dispatch-run-2');
    p = await bench.replayValid();
    expect(p.claim(p.dispatch(next.json.launches[0].dispatch_id)!.claimIds[0]!)!.workId).toBe(r2prepare.workId);
    expect(countOps(p, 'Release', d)).toBe(1);
    expect(countOps(p, 'ClaimCancellation')).toBe(0);
  });
});
