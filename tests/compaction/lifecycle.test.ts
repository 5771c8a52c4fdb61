/**
 * Compaction keeps launch and lifecycle promises (spec 7.10 "Compaction must preserve ...
 * request idempotency, dispatch bindings, and releases", 7.14 immutable assignments, 7.17):
 * the real CLI on a real local Git repository with the local GitHub stand-in. A group
 * reserved before `compact` launches afterwards with the same assignment bytes, and the
 * lifecycle requests committed before it (start marker and binding, finish, Result, Release)
 * answer their committed outcome on retry without writing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { startMarker } from '../../engine/lifecycle/dispatch.ts';
import { startRequestId } from '../../engine/lifecycle/ids.ts';
import { settleDelivery } from '../../lib/lifecycle/delivery.ts';
import { publishTransition } from '../../lib/publisher/requests.ts';
import { groupAssignment } from '../../lib/lifecycle/launcher.ts';
import { findRun, setRunStatus } from '../fake-github/routes-actions.ts';
import { runCaptured } from '../support/cli.ts';
import { benchCli as cli, dispatcherEnv, isolateBenchEnvironment, workerEnv } from '../support/lifecycle-bench.ts';
import { claimOf, countOps, createBench, finish, launchAndActivate, nodes, TOKEN, type Bench } from '../lifecycle/harness.ts';

let bench: Bench;
isolateBenchEnvironment(() => bench);

/** Between worker activations the CLI runs as the dispatcher's own job (a start marker names that sender run). */
const clearWorkerEnv = (): void => dispatcherEnv('3001');

/** An answer without what describes the queue now rather than the request (a grant receipt's live launch states). */
function committedPart(json: any): any {
  const { observed_tip: _tip, ...rest } = json;
  if (rest.replayed === true && Array.isArray(rest.dispatches)) {
    delete rest.status;
    rest.dispatches = rest.dispatches.map(({ status: _s, run_id: _r, ...d }: any) => d);
    rest.claims = rest.claims.map(({ finish: _f, ...c }: any) => c);
  }
  return rest;
}

async function branch(b: Bench): Promise<{ version: string | null; bytes: string }> {
  const snapshot = await b.store.read();
  return { version: snapshot.version, bytes: Buffer.from(snapshot.bytes!).toString('utf8') };
}

describe('compaction keeps launch and lifecycle promises (CLI on local Git)', () => {
  it('launches a group reserved before compact with the same assignment bytes, and lifecycle retries answer their committed outcome after one and two compactions', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c') });
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    clearWorkerEnv();
    const grant = await cli(bench, '--request-id', 'grant-1', 'dispatch-next', '--max-claims', '3', '--max-dispatches', '3');
    expect(grant.code, JSON.stringify(grant.json)).toBe(0);
    const [d1, d2, d3] = grant.json.dispatches.map((d: { dispatch_id: string }) => d.dispatch_id) as string[];
    const expected = new Map([d2!, d3!].map((d) => [d, '']));
    const before = await bench.projection();
    for (const d of expected.keys()) expected.set(d, canonicalize(groupAssignment(before, d)));

    // Group 1 runs its whole lifecycle before the checkpoint.
    const launched = await cli(bench, 'launch', '--dispatch-id', d1!);
    expect(launched.json.launches[0]).toMatchObject({ outcome: 'bound', state: 'bound' });
    const runId = launched.json.launches[0].run_id as string;
    const dir = mkdtempSync(join(bench.dir, 'cli-'));
    const assignment = String(findRun(bench.fake.state, runId)!.inputs.work_queue_assignment);
    writeFileSync(join(dir, 'assignment.json'), assignment);
    const claimId = JSON.parse(assignment).claims[0].claim_id as string;
    writeFileSync(join(dir, 'receipts.json'), JSON.stringify({ schema: 'fairway.delivery/1', dispatch_id: d1, claim_id: claimId, run_id: runId, complete: true, outputs: [] }));
    workerEnv(runId);
    const activated = await cli(bench, 'activate', '--assignment', join(dir, 'assignment.json'), '--out', join(dir, 'verified.json'));
    clearWorkerEnv();
    expect(activated.json).toMatchObject({ ok: true, binding: 'already_bound' });
    const lifecycle: Array<[string, string[], boolean]> = [
      ['finish', ['finish', '--dispatch-id', d1!, '--handle', 'h1', '--outcome', 'completed'], true],
      ['result', ['result', '--claim-id', claimId, '--evidence', join(dir, 'receipts.json')], false],
    ];
    const answers = new Map<string, any>();
    for (const [name, args, worker] of lifecycle) {
      if (worker) workerEnv(runId);
      const r = await cli(bench, ...args);
      clearWorkerEnv();
      expect(r.code, `${name}: ${JSON.stringify(r.json)}`).toBe(0);
    }
    setRunStatus(bench.fake.state, runId, 'completed', 'success');
    const reconciled = await cli(bench, 'reconcile', '--dispatch-id', d1!, '--interval-ms', '0');
    expect(reconciled.code, JSON.stringify(reconciled.json)).toBe(0);
    lifecycle.push(['launch', ['launch', '--dispatch-id', d1!], false], ['reconcile', ['reconcile', '--dispatch-id', d1!, '--interval-ms', '0'], false],
      ['grant', ['--request-id', 'grant-1', 'dispatch-next', '--max-claims', '3', '--max-dispatches', '3'], false]);
    // Retries before compaction: the committed outcomes.
    for (const [name, args, worker] of lifecycle) {
      if (worker) workerEnv(runId);
      const r = await cli(bench, ...args);
      clearWorkerEnv();
      expect(r.code, `${name}: ${JSON.stringify(r.json)}`).toBe(0);
      answers.set(name, r.json);
    }

    const retriesAnswerCommitted = async (label: string) => {
      const at = await branch(bench);
      for (const [name, args, worker] of lifecycle) {
        if (worker) workerEnv(runId);
        const r = await cli(bench, ...args);
        clearWorkerEnv();
        expect(r.code, `${label} ${name}: ${JSON.stringify(r.json)}`).toBe(0);
        expect(committedPart(r.json), `${label} ${name}`).toEqual(committedPart(answers.get(name)));
      }
      expect(await branch(bench)).toEqual(at);
    };

    const first = await cli(bench, 'compact');
    expect(first.json).toMatchObject({ ok: true, status: 'committed' });
    await retriesAnswerCommitted('after compact');
    const launch2 = await cli(bench, 'launch', '--dispatch-id', d2!);
    expect(launch2.json.launches[0]).toMatchObject({ outcome: 'bound', state: 'bound' });
    expect(String(findRun(bench.fake.state, launch2.json.launches[0].run_id)!.inputs.work_queue_assignment)).toBe(expected.get(d2!));

    const second = await cli(bench, 'compact');
    expect(second.json).toMatchObject({ ok: true, status: 'committed' });
    await retriesAnswerCommitted('after the second compact');
    const launch3 = await cli(bench, 'launch', '--dispatch-id', d3!);
    expect(launch3.json.launches[0]).toMatchObject({ outcome: 'bound', state: 'bound' });
    expect(String(findRun(bench.fake.state, launch3.json.launches[0].run_id)!.inputs.work_queue_assignment)).toBe(expected.get(d3!));
    const again = await cli(bench, 'launch', '--dispatch-id', d2!);
    expect(again.json.launches[0]).toMatchObject({ outcome: 'marker_exists', posted: false });
    const p = await bench.replayValid();
    expect(p.state.checkpoint).toBeDefined();
    expect(countOps(p, 'Dispatch', d2)).toBe(0); // compacted into the second checkpoint
    expect(p.dispatch(d2!)!.state).toBe('bound');
  });

  it('a DeliveryFailure committed before compact is answered by `fairway delivery-failure` (already_failed) after compact, and `result` still refuses, writing nothing; `inspect --work-id` still names its commit, also from the ledger file alone', async () => {
    bench = await createBench({ nodes: [{ node_key: 'A', payload: { plan: 'a', effect_contract: { version: 1, outputs: [{ type: 'create_issue', min: 1, max: 1 }] } } }] });
    const [d] = await bench.grant('g1');
    const run = await launchAndActivate(bench, d!);
    await finish(bench, d!, 'h1', 'completed', run);
    const c = claimOf(await bench.projection(), d!, 'h1');
    setRunStatus(bench.fake.state, run, 'completed', 'failure');
    bench.clock.t += 300_000; // past the reconciliation deadline from the Completion
    const failed = await settleDelivery({ publisher: bench.publisher, api: bench.api, reconciler: bench.reconciler, now: bench.now }, { claimId: c, receipts: null });
    expect(failed).toMatchObject({ outcome: 'delivery_failure', effects: 'unknown' });
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const dir = mkdtempSync(join(bench.dir, 'cli-'));
    writeFileSync(join(dir, 'receipts.json'), JSON.stringify({ schema: 'fairway.delivery/1', dispatch_id: d, claim_id: c, run_id: run, complete: true, outputs: [{ type: 'create_issue', status: 'succeeded' }] }));
    const answers = async () => [
      await cli(bench, 'delivery-failure', '--claim-id', c),
      await cli(bench, 'result', '--claim-id', c, '--evidence', join(dir, 'receipts.json')),
    ];
    const before = await answers();
    expect(before[0]).toMatchObject({ code: 0, json: { ok: true, outcome: 'already_failed' } });
    expect(before[1]!.json.ok).toBe(false);
    const workId = (await bench.projection()).claim(c)!.workId;
    const failureCommit = async (...source: string[]) => (await runCaptured([...source, '--json', 'inspect', '--work-id', workId])).json.delivery_failure;
    const committed = await failureCommit('--dir', bench.dir);
    expect(committed).toBe(before[0]!.json.commit_id);
    expect((await cli(bench, 'compact')).json.status).toBe('committed');
    const at = await branch(bench);
    expect(await answers()).toEqual(before);
    expect(await branch(bench)).toEqual(at);
    expect(countOps(await bench.replayValid(), 'DeliveryFailure')).toBe(0); // it lives in the checkpoint now
    // `inspect --work-id` names the DeliveryFailure's commit after compact, also from the ledger file alone
    // (Fairway's one DeliveryFailure request of the Claim names it; the checkpoint does not).
    expect(await failureCommit('--dir', bench.dir)).toBe(committed);
    const file = join(dir, 'compacted.jsonl');
    writeFileSync(file, at.bytes);
    expect(await failureCommit('--ledger', file)).toBe(committed);
  });

  it('`fairway evidence` of groups launched and released before compact keeps their start time, run, reported run ids and Release commit; `inspect --claim-id` names that Release commit too', async () => {
    bench = await createBench({ nodes: nodes('a', 'b') });
    const [d1, d2] = await bench.grant('g1', 2, 2);
    const run = await launchAndActivate(bench, d1!);
    await finish(bench, d1!, 'h1', 'completed', run);
    setRunStatus(bench.fake.state, run, 'completed', 'success');
    bench.clock.t += 5_000;
    await publishTransition(bench.publisher, startRequestId(d2!), bench.dispatcher, (st) => startMarker(st, d2!, bench.dispatcher as never), { now: bench.now });
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    expect((await cli(bench, 'reconcile', '--dispatch-id', d1!, '--interval-ms', '0')).code).toBe(0);
    const view = async () => {
      const groups = [];
      for (const d of [d1!, d2!]) {
        const r = await cli(bench, 'evidence', '--dispatch-id', d);
        expect(r.code, JSON.stringify(r.json)).toBe(0);
        groups.push(...r.json.groups.map(({ events: _e, ...g }: any) => g));
      }
      return groups;
    };
    const before = await view();
    expect(before.map((g: any) => [g.state, g.started_at !== null, g.release_commit !== null])).toEqual([['released', true, true], ['started', true, false]]);
    // `inspect --claim-id` names the same Release commit, before and after (it showed null once compacted).
    const claim = (await bench.replayValid()).dispatch(d1!)!.claimIds[0]!;
    const releaseOf = async () => (await cli(bench, 'inspect', '--claim-id', claim)).json.dispatch;
    expect(await releaseOf()).toMatchObject({ released: true, release_commit: before[0].release_commit });
    expect((await cli(bench, 'compact')).json.status).toBe('committed');
    expect(await view()).toEqual(before);
    expect(await releaseOf()).toMatchObject({ released: true, release_commit: before[0].release_commit });
  });
});
