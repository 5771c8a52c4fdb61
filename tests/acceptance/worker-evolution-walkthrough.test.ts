/**
 * Worker evolution walkthrough (issue 16 "Done when", spec 7.10 "Stable obligations and
 * evolving execution"), through the real CLI entry point on a real Git repository:
 *
 * 1. bootstrap from a repository whose default branch has a worker workflow (the verified
 *    route: its commit SHA is the installed `ref`);
 * 2. a compatible revision (same declared inputs) is deployed without draining; pinned Work
 *    runs its pinned revision, unpinned Work the deployed one;
 * 3. an incompatible revision (a new declared input: a new logical contract) is deployed;
 *    only the unpinned Work admitted under the old contract pauses (`contract_incompatible` in
 *    explain), with its dependent successor, without consuming attempts; pinned Work and Work
 *    admitted after the deployment still run;
 * 4. changing authority (the approved principal) is refused while the queue is not drained,
 *    and installs as a new Policy epoch once it is.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { replayLedger } from '../../engine/replay/index.ts';
import { WORKERS_FILE } from '../../lib/config/workers.ts';
import { runFairway } from '../support/cli.ts';
import { fixtureRepo, git } from '../support/fixture-repo.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';

let repo: string;
let files: string;

async function cli(...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await runFairway(['--repo', repo, '--json', '--principal', '4242', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: out === '' ? null : JSON.parse(out) };
}

function commit(path: string, body: string): string {
  writeFileSync(join(repo, path), body);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', `change ${path}`);
  return git(repo, 'rev-parse', 'main');
}

function state() {
  return replayLedger(new Uint8Array(Buffer.from(`${git(repo, 'show', 'work-queue:work-queue.jsonl')}\n`))).state;
}

function workByKey(key: string) {
  return [...state().works.values()].find((w) => w.nodeKey === key)!;
}

/** The immutable revision the Work's current Claim was granted to run (its dispatch group's frozen profile). */
function grantedRef(key: string): string {
  const s = state();
  const w = workByKey(key);
  return String(s.dispatches.get(s.claims.get(w.currentClaim!)!.dispatchId)!.profile.ref);
}

async function submit(key: string, extra: string[] = []): Promise<string> {
  const payload = join(files, `${key}.json`);
  writeFileSync(payload, JSON.stringify({ task: key }));
  const r = await cli('--request-id', `submit-${key}`, 'submit-work', '--file', payload, '--node-key', key, ...extra);
  expect(r.code, JSON.stringify(r.json)).toBe(0);
  return r.json.work_ids[0] as string;
}

/** dispatch_next until nothing more is granted; the dispatch ids of every reserved group. */
async function grantAll(prefix: string): Promise<string[]> {
  const groups: string[] = [];
  for (let i = 0; i < 12; i++) {
    const g = await cli('--request-id', `${prefix}-${i}`, 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1');
    expect(g.code, JSON.stringify(g.json)).toBe(0);
    if (g.json.commit_id === null) break;
    groups.push(...g.json.dispatches.map((d: { dispatch_id: string }) => d.dispatch_id));
  }
  return groups;
}

const profile = () => (state().policy!.policy.pools as any).default.profiles.default;

beforeEach(() => {
  repo = fixtureRepo('fairway-evolution-');
  files = mkdtempSync(join(tmpdir(), 'fairway-evolution-files-'));
});

describe('worker evolution walkthrough (CLI on a real Git repository)', () => {
  it('bootstrap → compatible deploy (pinned/unpinned) → incompatible deploy pauses only affected Work → drained Policy epoch changes authority', async () => {
    // 1. Bootstrap: the verified route is the worker workflow at the default branch's commit.
    const c0 = git(repo, 'rev-parse', 'main');
    await submit('first');
    expect(profile()).toMatchObject({ ref: c0, workflow: WORKER_WORKFLOW, principal: '4242' });
    expect(state().policy!.epoch).toBe('epoch-1');

    // 2. A compatible revision: a new name, the same declared inputs. No drain, same contract.
    const c1 = commit(WORKER_WORKFLOW, workerWorkflowYaml('worker-v1'));
    const d1 = await cli('--request-id', 'deploy-1', 'deploy', '--from-config');
    expect(d1.json.deployments).toMatchObject([{ status: 'deployed', from: c0, to: c1, available: true, compatible: true }]);
    expect(state().policy!.epoch).toBe('epoch-1'); // no new epoch, nothing drained
    await submit('pinned-c0', ['--execution-ref', c0]);
    await submit('unpinned');
    const g1 = await grantAll('g1');
    expect(g1).toHaveLength(3);
    expect({ first: grantedRef('first'), pinned: grantedRef('pinned-c0'), unpinned: grantedRef('unpinned') }).toEqual({ first: c1, pinned: c0, unpinned: c1 });

    // Work admitted under the current contract before the next deployment: an unpinned Work, its
    // dependent successor, and an independent Work pinned to c1.
    const graph = join(files, 'graph.json');
    writeFileSync(graph, JSON.stringify([
      { node_key: 'old', payload: { task: 'old' } },
      // Pinned to a still-available revision, so it is not affected itself: it waits only on its paused predecessor.
      { node_key: 'old-successor', payload: { task: 'after old' }, depends_on: [{ kind: 'work', node_key: 'old' }], execution_ref: c1 },
      { node_key: 'pinned-c1', payload: { task: 'pinned' }, execution_ref: c1 },
    ]));
    const admitted = await cli('--request-id', 'submit-graph-1', 'submit-graph', '--file', graph, '--graph-id', 'campaign');
    expect(admitted.code, JSON.stringify(admitted.json)).toBe(0);

    // 3. An incompatible revision: it declares a new input, so its logical contract differs.
    const incompatible = workerWorkflowYaml('worker-v2').replace('    inputs:\n', '    inputs:\n      work_queue_context:\n        required: false\n        type: string\n');
    const c2 = commit(WORKER_WORKFLOW, incompatible);
    const d2 = await cli('--request-id', 'deploy-2', 'deploy', '--from-config');
    expect(d2.json.deployments).toMatchObject([{ status: 'deployed', from: c1, to: c2, available: true, compatible: false }]);
    await submit('new'); // admitted after the deployment: freezes the new contract
    const g2 = await grantAll('g2');
    expect(g2).toHaveLength(2);
    expect({ pinned: grantedRef('pinned-c1'), fresh: grantedRef('new') }).toEqual({ pinned: c1, fresh: c2 });

    // Only the affected Work waits, with the reason; no Claim, attempt or service was consumed.
    const old = workByKey('old');
    expect([old.state, old.attempts, old.currentClaim ?? null]).toEqual(['available', 0, null]);
    const why = await cli('explain', '--pool', 'default', '--work-id', old.workId);
    expect(why.json.reason).toBe('contract_incompatible');
    const successor = workByKey('old-successor');
    expect([successor.attempts, successor.currentClaim ?? null]).toEqual([0, null]);
    const blocked = await cli('explain', '--pool', 'default', '--work-id', successor.workId);
    expect(blocked.json).toMatchObject({ eligible: false, reason: 'dependency_wait' }); // waits on its paused predecessor
    expect(blocked.json.blocking_path.map((b: { work_id: string }) => b.work_id)).toContain(old.workId);

    // 4. Authority changes need a drained Policy epoch. Configure a new approved principal.
    const c3 = commit(WORKERS_FILE, JSON.stringify({ workers: { default: { workflow: WORKER_WORKFLOW, principal: '5150' } } }));
    const tip = git(repo, 'rev-parse', 'work-queue');
    const refused = await cli('--request-id', 'policy-early', 'policy', '--from-config', '--epoch', 'epoch-2');
    expect(refused).toMatchObject({ code: 3, json: { error: { code: 'policy_not_quiescent' } } });
    expect(git(repo, 'rev-parse', 'work-queue')).toBe(tip);

    // Drain: release the never-launched groups (prelaunch cancellation, no GitHub call: the API
    // root points nowhere), then cancel the remaining Work.
    const saved = { ...process.env };
    Object.assign(process.env, { GH_TOKEN: 'unused', FAIRWAY_GITHUB_API_URL: 'http://127.0.0.1:9' });
    try {
      for (const d of [...g1, ...g2]) {
        const r = await cli('--request-id', `release-${d}`, 'reconcile', '--dispatch-id', d, '--cancel-reserved', '--interval-ms', '0');
        expect(r.code, JSON.stringify(r.json)).toBe(0);
      }
    } finally {
      process.env = saved;
    }
    const open = [...state().works.values()].filter((w) => !['completed', 'cancelled', 'failed'].includes(w.state)).map((w) => w.workId);
    expect(open.length).toBeGreaterThan(0);
    const cancelled = await cli('--request-id', 'drain', 'cancel-work', '--work-id', open.join(','), '--reason', 'operator_drain');
    expect(cancelled.code, JSON.stringify(cancelled.json)).toBe(0);

    const epoch = await cli('--request-id', 'policy-2', 'policy', '--from-config', '--epoch', 'epoch-2');
    expect(epoch.code, JSON.stringify(epoch.json)).toBe(0);
    expect(state().policy!.epoch).toBe('epoch-2');
    expect(profile()).toMatchObject({ principal: '5150', ref: c3, workflow: WORKER_WORKFLOW });
    // New Work runs under the new authority.
    await submit('after-epoch');
    const g3 = await grantAll('g3');
    expect(g3).toHaveLength(1);
    const s = state();
    expect(s.dispatches.get(g3[0]!)!.profile).toMatchObject({ principal: '5150', ref: c3 });
  });
});
