/**
 * Launch (spec 7.8): start marker before the one POST, API version 2026-03-10 run details,
 * exact run validation before Dispatch(bound), uncertainty on anything less, definitive
 * rejection released once. Every scenario ends with a cold replay of the branch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { findRun } from '../fake-github/routes-actions.ts';
import { countOps, createBench, dispatchPosts, type Bench } from './harness.ts';

let bench: Bench;
afterEach(async () => bench?.close());

describe('launch', () => {
  it('commits the start marker, POSTs once with the 2026-03-10 contract and binds the validated run', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    const report = await launchGroup(bench.launchDeps(), d!);
    expect(report).toMatchObject({ outcome: 'bound', state: 'bound', posted: true, http_status: 200, mismatches: [] });
    expect(dispatchPosts(bench.fake)).toBe(1);
    const post = bench.fake.requests.find((r) => r.method === 'POST')!;
    expect(post.authorization).toBe('token fake-token');
    const run = findRun(bench.fake.state, report.run_id!)!;
    expect(run.displayTitle).toBe(`worker [${d}]`);
    const assignment = JSON.parse(String(run.inputs.work_queue_assignment));
    expect(assignment.dispatch_id).toBe(d);
    expect(assignment.claims).toHaveLength(1);
    const p = await bench.replayValid();
    const group = p.dispatch(d!)!;
    expect(group.state).toBe('bound');
    expect((group.run as { run_id: string }).run_id).toBe(report.run_id);
    // Marker first: the started commit precedes the bound one, and the POST came between.
    expect(countOps(p, 'Dispatch', d)).toBe(2);
  });

  it('IDs above 2^53 round-trip exactly: run 9007199254740993 is bound as that exact decimal', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    const report = await launchGroup(bench.launchDeps(), d!);
    expect(report.run_id).toBe('9007199254740993');
    expect(Number(report.run_id)).not.toBe(9007199254740993n.toString()); // a float would have rounded it
    const p = await bench.replayValid();
    expect((p.dispatch(d!)!.run as { run_id: string }).run_id).toBe('9007199254740993');
    const text = p.commitText(p.tip!)!;
    expect(text).toContain('"run_id":"9007199254740993"');
  });

  it('a marker found on the ledger is never followed by a second POST, even for its own request', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    await launchGroup(bench.launchDeps(), d!);
    const again = await launchGroup(bench.launchDeps(), d!);
    expect(again).toMatchObject({ outcome: 'marker_exists', posted: false });
    expect(dispatchPosts(bench.fake)).toBe(1);
    await bench.replayValid();
  });

  it('an unsupported 204 response shape is uncertain and keeps the reservation', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', kind: 'status', status: 204, process: true });
    const report = await launchGroup(bench.launchDeps(), d!);
    expect(report).toMatchObject({ outcome: 'uncertain', reason: 'dispatch_response_unsupported', state: 'uncertain' });
    // Spec 7.8: the report names the next operator action (reconcile this group; nothing is resent).
    expect(report.next_action).toContain(`fairway reconcile --dispatch-id ${d!}`);
    const p = await bench.replayValid();
    expect(p.state.outstandingNative.get('default')).toBe(1);
    expect(countOps(p, 'Release')).toBe(0);
  });

  it('a run whose head is not the approved immutable revision is not bound', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.repo.refs.set('refs/heads/moved', 'f'.repeat(40));
    const report = await launchGroup(bench.launchDeps({ ref: 'moved' }), d!);
    expect(report).toMatchObject({ outcome: 'uncertain', reason: 'run_ref_mismatch', mismatches: ['run_ref_mismatch'] });
    expect((await bench.replayValid()).dispatch(d!)!.state).toBe('uncertain');
  });

  it('grants_paused blocks a new start marker and nothing is sent', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    const { control } = await import('../../engine/requests/lifecycle.ts');
    await bench.publisher.publish({ requestId: 'pause', actor: bench.admin, prepare: () => control('grants_paused', true, 'outage'), now: bench.now });
    const report = await launchGroup(bench.launchDeps(), d!);
    expect(report).toMatchObject({ outcome: 'grants_paused', posted: false, state: 'reserved' });
    expect(dispatchPosts(bench.fake)).toBe(0);
    await bench.replayValid();
  });

  it('a definitive no-launch releases exactly once', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', kind: 'status', status: 422, body: { message: 'Unexpected inputs provided', documentation_url: 'https://docs.github.com/rest' } });
    const report = await launchGroup(bench.launchDeps(), d!);
    expect(report).toMatchObject({ outcome: 'rejected', state: 'released', reason: 'dispatch_rejected_422' });
    // Repeated recovery never releases again.
    const again = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(again.outcome).toBe('already_released');
    const p = await bench.replayValid();
    expect(countOps(p, 'Release', d)).toBe(1);
    expect(p.state.outstandingNative.get('default') ?? 0).toBe(0);
    const claim = p.claim(p.dispatch(d!)!.claimIds[0]!)!;
    expect(claim.state).toBe('cancelled');
    expect(p.work(claim.workId)!.state).toBe('available');
  });
});
