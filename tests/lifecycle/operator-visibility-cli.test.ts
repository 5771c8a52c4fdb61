/**
 * Spec §7.18 "Operator-visible outcome: backlog, retained reservations, unresolved launch IDs,
 * and pending delivery barriers remain distinguishable", through the real `fairway` CLI on a real
 * local Git queue and the GitHub stand-in: what `stats` shows of each, and the next action of a
 * launch held by a grant pause; and what delivery-failure needs of the reconciliation budget.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RECONCILIATION } from '../../engine/schema/defaults.ts';
import { setRunStatus } from '../fake-github/routes-actions.ts';
import { dispatcherEnv, isolateBenchEnvironment } from '../support/lifecycle-bench.ts';
import { activateRun, finishMember, fw, human, launchNext, noJob } from '../support/recovery-cli.ts';
import { createBench, dispatchPosts, nodes, type Bench } from './harness.ts';

const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';
const WORKFLOW_RUNS = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs';

let bench: Bench;
isolateBenchEnvironment(() => bench);

describe('stats: backlog, retained reservations, unresolved launch ids and pending barriers', () => {
  it('lists the unresolved launch ids apart from the other retained reservations, the backlog and the pending barriers (json, jsonl and text)', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c', 'd') });
    // d1: its POST answer is a 502 (a run is queued): uncertain. d2: bound, its worker completes its member.
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'status', status: 502, process: true, body: { message: 'Server Error', documentation_url: 'x' } });
    const l = await launchNext(bench, 'dispatch-run-1', 2, 2);
    expect(l.json.launches.map((x: { outcome: string }) => x.outcome)).toEqual(['uncertain', 'bound']);
    const [d1, d2] = l.json.launches.map((x: { dispatch_id: string }) => x.dispatch_id) as [string, string];
    const run2 = l.json.launches[1].run_id as string;
    expect((await activateRun(bench, run2)).code).toBe(0);
    expect((await finishMember(bench, run2, d2, 'h1', 'completed')).code).toBe(0);
    // d3: granted, never launched (a plain retained reservation).
    dispatcherEnv();
    const granted = await fw(bench, '--request-id', 'grant-2', 'dispatch-next');
    const d3 = granted.json.dispatches[0].dispatch_id as string;
    // The runs API cannot be read: d1's bounded observation budget ends unresolved.
    noJob();
    bench.fake.inject({ method: 'GET', path: WORKFLOW_RUNS, kind: 'status', status: 401, times: 4, body: { message: 'Bad credentials', documentation_url: 'x' } });
    expect((await fw(bench, 'reconcile', '--dispatch-id', d1, '--max-polls', '2', '--interval-ms', '0')).json.error.code).toBe('launch_unresolved');

    const p = await bench.replayValid();
    expect(p.dispatch(d1)).toMatchObject({ state: 'unresolved', released: false });
    const stats = await fw(bench, 'stats');
    expect(stats.code, stats.err).toBe(0);
    // What stats already showed stays as it was: backlog, reservations per pool, barrier counts.
    expect(stats.json).toMatchObject({ works: { available: 1, claimed: 2, completed: 1 }, barriers: { pending: 1 }, pools: [{ available: 1, native_outstanding: 3 }] });
    // The unresolved launch ids, only those: d2 (bound) and d3 (reserved) keep their reservations too but are not unresolved.
    expect(stats.json.unresolved_launches).toEqual([{ dispatch_id: d1, pool: 'default', state: 'unresolved', reason: p.dispatch(d1)!.reason }]);
    const records = (await human(bench, 'stats', '--format', 'jsonl')).out.trim().split('\n').map((x) => JSON.parse(x) as { type: string });
    expect(records.filter((r) => r.type === 'unresolved_launch')).toEqual([{ type: 'unresolved_launch', dispatch_id: d1, pool: 'default', state: 'unresolved', reason: p.dispatch(d1)!.reason }]);
    const text = (await human(bench, 'stats')).out;
    expect(text).toMatch(/^unresolved launches: 1 \(reservations kept; fairway reconcile --dispatch-id ID\)$/m);
    expect(text).toContain(`  ${d1} unresolved`);
    expect(text).not.toContain(d2);
    expect(text).not.toContain(d3);
    expect(text).toContain('delivery barriers: pending 1');
  });
});

describe('launch held by a grant pause', () => {
  it('reports grants_paused with its next action (resume grants, or cancel prelaunch) in --json and text, exits 0 and writes nothing; --help says so', async () => {
    bench = await createBench({ nodes: nodes('a') });
    dispatcherEnv();
    const granted = await fw(bench, '--request-id', 'grant-1', 'dispatch-next');
    const d = granted.json.dispatches[0].dispatch_id as string;
    noJob();
    await fw(bench, '--request-id', 'pause', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident');
    const before = (await bench.replayValid()).tip;
    dispatcherEnv();
    const held = await fw(bench, 'launch', '--dispatch-id', d);
    expect(held.code, held.err).toBe(0);
    const next = held.json.launches[0].next_action as string;
    expect(held.json.launches[0]).toMatchObject({ dispatch_id: d, outcome: 'grants_paused', state: 'reserved', posted: false });
    expect(next).toContain('fairway control --name grants_paused --paused false');
    expect(next).toContain(`fairway reconcile --dispatch-id ${d} --cancel-reserved`);
    const text = await human(bench, 'launch', '--dispatch-id', d);
    expect(text.code).toBe(0);
    expect(text.out).toContain(`${d}: grants_paused (reserved)\n  next: ${next}\n`);
    expect(dispatchPosts(bench.fake)).toBe(0);
    expect((await bench.replayValid()).tip).toBe(before);
    const help = await human(bench, 'launch', '--help');
    expect(help.out.replace(/\s+/g, ' ')).toContain('A group held by a grant pause (grants_paused) is reported with its next action and the command exits 0');
  });
});

describe('delivery-failure and the reconciliation budget', () => {
  it('--help says --attempts must reach reconciliation.max_attempts (default from the Policy defaults) or it refuses with reconciliation_pending, and it does', async () => {
    bench = await createBench({ nodes: nodes('a') });
    const help = (await human(bench, 'delivery-failure', '--help')).out.replace(/\s+/g, ' ');
    const budget = DEFAULT_RECONCILIATION.max_attempts;
    expect(help).toContain(`--attempts must reach the pool's reconciliation budget (reconciliation.max_attempts, default ${budget})`);
    expect(help).toContain('refused with reconciliation_pending (exit 3)');
    // The README's command section says the same.
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain(`\`--attempts\` must reach the pool's reconciliation budget (\`reconciliation.max_attempts\`, default ${budget})`);
    expect(readme).toContain('refused with `reconciliation_pending` (exit 3)');
    // What the help says holds: a completed Claim whose run is terminal, receipts absent.
    const l = await launchNext(bench, 'dispatch-run-1');
    const { dispatch_id: d, run_id: run } = l.json.launches[0];
    const claim = (await activateRun(bench, run)).json.assignment.claims[0].claim_id as string;
    await finishMember(bench, run, d, 'h1', 'completed');
    setRunStatus(bench.fake.state, run, 'completed', 'failure');
    noJob();
    expect((await fw(bench, 'reconcile', '--all', '--interval-ms', '0')).code).toBe(0);
    const early = await fw(bench, 'delivery-failure', '--claim-id', claim, '--attempts', String(budget - 1));
    expect(early).toMatchObject({ code: 3, json: { ok: false, error: { code: 'reconciliation_pending' } } });
    const exhausted = await fw(bench, 'delivery-failure', '--claim-id', claim, '--attempts', String(budget));
    expect(exhausted).toMatchObject({ code: 0, json: { ok: true, outcome: 'delivery_failure' } });
  });
});
