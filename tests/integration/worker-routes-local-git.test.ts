/**
 * Worker routes verified from the repository (issue 16 §3) on real local Git repositories:
 * bootstrap, `policy --from-config` and `deploy --from-config` install each worker profile
 * from the default branch's immutable commit — the workflow declaring the
 * `work_queue_assignment` input, its commit SHA as `ref` — never a placeholder.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { currentRevision } from '../../engine/state/routes.ts';
import { workerRoute } from '../../engine/replay/ops/deployment.ts';
import { WORKERS_FILE } from '../../lib/config/workers.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';
import { commitOnMain, git, queueTip } from '../support/fixture-repo.ts';

async function cli(repo: string, ...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await main(['--repo', repo, '--json', '--principal', '4242', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

function state(repo: string) {
  return replayLedger(new Uint8Array(execFileSync('git', ['-C', repo, 'show', 'work-queue:work-queue.jsonl']))).state;
}

const profiles = (repo: string) => (state(repo).policy!.policy.pools as any).default.profiles;

let repo: string;
let payload: string;

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'fairway-routes-'));
  payload = join(mkdtempSync(join(tmpdir(), 'fairway-routes-files-')), 'p.json');
  writeFileSync(payload, JSON.stringify({ task: 'x' }));
  git(repo, 'init', '-q', '-b', 'main');
  commitOnMain(repo, { 'README.md': 'project\n' });
});

describe('bootstrap verifies the worker route at the default revision', () => {
  it('installs the worker workflow declaring work_queue_assignment with its commit SHA as ref (no placeholder)', async () => {
    const head = commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml(), '.github/workflows/ci.yml': 'on: push\n' });
    // The blob the route names is exactly the one at HEAD's commit.
    const source = (await new LocalGitStore({ repo }).defaultRevision())!;
    expect(source.ref).toBe(head);
    expect(new TextDecoder().decode((await source.readFile(WORKER_WORKFLOW))!)).toBe(workerWorkflowYaml());
    const r = await cli(repo, '--request-id', 's1', 'submit-work', '--file', payload, '--node-key', 'a');
    expect(r).toMatchObject({ code: 0, json: { bootstrap: true } });
    expect(profiles(repo)).toEqual({ default: { credential_scope: 'repository', effect_scope: expect.any(String), max_claims: 1, principal: '4242', ref: head, share_keys: false, trust_domain: 'default', workflow: WORKER_WORKFLOW } });
  });

  it('fails without queue publication when no workflow declares the work_queue_assignment input (worker_route_unavailable)', async () => {
    commitOnMain(repo, { '.github/workflows/worker.yml': 'on:\n  workflow_dispatch:\n    inputs:\n      task:\n        type: string\n' });
    const r = await cli(repo, '--request-id', 's1', 'submit-work', '--file', payload);
    expect(r).toMatchObject({ code: 3, json: { ok: false, error: { code: 'worker_route_unavailable' } } });
    expect(queueTip(repo)).toBeNull();
    // After the worker lands, the same request publishes Policy and Work atomically.
    const head = commitOnMain(repo, { '.github/workflows/worker.yml': workerWorkflowYaml() });
    expect((await cli(repo, '--request-id', 's1', 'submit-work', '--file', payload)).code).toBe(0);
    expect(profiles(repo).default.ref).toBe(head);
  });

  it('an unrelated unavailable declared worker does not block bootstrap; Work naming it fails without publication', async () => {
    const head = commitOnMain(repo, {
      [WORKERS_FILE]: JSON.stringify({ workers: { main: { workflow: '.github/workflows/main.yml', principal: '9001', max_claims: 2 }, gpu: { workflow: '.github/workflows/gpu.yml' } } }),
      '.github/workflows/main.yml': workerWorkflowYaml('main'),
    });
    const gpu = await cli(repo, '--request-id', 'g', 'submit-work', '--file', payload, '--worker-profile', 'gpu');
    expect(gpu).toMatchObject({ code: 3, json: { error: { code: 'worker_route_unavailable' } } });
    expect(gpu.json.error.message).toContain('workflow_missing');
    expect(queueTip(repo)).toBeNull();
    expect((await cli(repo, '--request-id', 'm', 'submit-work', '--file', payload)).code).toBe(0);
    expect(profiles(repo)).toEqual({ main: expect.objectContaining({ principal: '9001', max_claims: 2, ref: head, workflow: '.github/workflows/main.yml' }) });
    expect((state(repo).policy!.policy.pools as any).default.default_profile).toBe('main');
  });

  it('an invalid workers file writes nothing and names the property (workers_invalid)', async () => {
    commitOnMain(repo, { [WORKERS_FILE]: JSON.stringify({ workers: { main: { workflow: '.github/workflows/main.yml', scopes: ['repo'] } } }), '.github/workflows/main.yml': workerWorkflowYaml() });
    const r = await cli(repo, '--request-id', 's', 'submit-work', '--file', payload);
    expect(r).toMatchObject({ code: 3, json: { error: { code: 'workers_invalid' } } });
    expect(r.json.error.message).toContain('workers.main');
    expect(queueTip(repo)).toBeNull();
  });
});

describe('policy --from-config and deploy --from-config', () => {
  it('policy --from-config keeps the deployed ref and only a configuration change of authority moves it', async () => {
    const c0 = commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml('v0') });
    const seeded = await cli(repo, '--request-id', 's', 'submit-work', '--file', payload);
    expect(seeded.code).toBe(0);
    // A Policy epoch needs a drained queue.
    expect((await cli(repo, '--request-id', 'c', 'cancel-work', '--work-id', seeded.json.work_ids[0], '--reason', 'operator_cancelled')).code).toBe(0);
    const c1 = commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml('v1') });
    expect((await cli(repo, '--request-id', 'd1', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ from: c0, to: c1, available: true });
    commitOnMain(repo, { 'src/other.ts': 'x\n' });
    const contractBefore = currentRevision(workerRoute(state(repo), 'default', 'default')!).contract;
    const p1 = await cli(repo, '--request-id', 'p1', 'policy', '--from-config', '--epoch', 'epoch-2');
    expect(p1.code).toBe(0);
    expect(profiles(repo).default).toMatchObject({ ref: c1, principal: '4242' }); // the deployed ref, not the new tip nor zeros
    // ... and the deployed contract: the new epoch's route runs c1 under the same logical contract.
    const after = workerRoute(state(repo), 'default', 'default')!;
    expect([after.currentRef, currentRevision(after).contract]).toEqual([c1, contractBefore]);
    // The worker disappears from the default branch: the profile keeps its deployed route.
    commitOnMain(repo, { [WORKER_WORKFLOW]: null });
    expect((await cli(repo, '--request-id', 'p2', 'policy', '--from-config', '--epoch', 'epoch-3')).code).toBe(0);
    expect(profiles(repo).default.ref).toBe(c1);
    // Configuration changes the approved principal: the profile moves to the verified revision.
    const c4 = commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml('v4'), [WORKERS_FILE]: JSON.stringify({ workers: { default: { workflow: WORKER_WORKFLOW, principal: '5150' } } }) });
    expect((await cli(repo, '--request-id', 'p3', 'policy', '--from-config', '--epoch', 'epoch-4')).code).toBe(0);
    expect(profiles(repo).default).toMatchObject({ ref: c4, principal: '5150' });
  });

  it('policy --from-config refuses to install a revision deploy recorded unavailable as an available route (worker_route_unavailable)', async () => {
    commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml('v0') });
    const seeded = await cli(repo, '--request-id', 's', 'submit-work', '--file', payload);
    expect((await cli(repo, '--request-id', 'c', 'cancel-work', '--work-id', seeded.json.work_ids[0], '--reason', 'operator_cancelled')).code).toBe(0);
    const c1 = commitOnMain(repo, { [WORKER_WORKFLOW]: null });
    expect((await cli(repo, '--request-id', 'd1', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ to: c1, available: false });
    const tip = queueTip(repo);
    const refused = await cli(repo, '--request-id', 'p1', 'policy', '--from-config', '--epoch', 'epoch-2');
    expect(refused).toMatchObject({ code: 3, json: { error: { code: 'worker_route_unavailable', details: { pool: 'default', worker_profile: 'default', ref: c1 } } } });
    expect(queueTip(repo)).toBe(tip);
    // The worker is back and deployed: the epoch installs its available revision.
    const c2 = commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml('v2') });
    expect((await cli(repo, '--request-id', 'd2', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ to: c2, available: true });
    expect((await cli(repo, '--request-id', 'p2', 'policy', '--from-config', '--epoch', 'epoch-2')).code).toBe(0);
    expect(profiles(repo).default.ref).toBe(c2);
  });

  it('policy --file refuses a profile workflow outside .github/workflows (policy_invalid naming it) and writes nothing', async () => {
    commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml('v0') });
    const seeded = await cli(repo, '--request-id', 's', 'submit-work', '--file', payload);
    expect((await cli(repo, '--request-id', 'c', 'cancel-work', '--work-id', seeded.json.work_ids[0], '--reason', 'operator_cancelled')).code).toBe(0);
    const policy = state(repo).policy!.policy as unknown as { pools: { default: { profiles: { default: { workflow: string } } } } };
    const tip = queueTip(repo);
    for (const workflow of ['README.md', '../../../etc/passwd', 'tools/worker.lock.yml', '.github/workflows/../../README.md', '.github/workflows/sub/worker.yml']) {
      policy.pools.default.profiles.default.workflow = workflow;
      const path = join(payload, '..', 'policy.json');
      writeFileSync(path, JSON.stringify(policy));
      const r = await cli(repo, '--request-id', 'p', 'policy', '--file', path, '--epoch', 'epoch-2');
      expect(r, workflow).toMatchObject({ code: 3, json: { error: { code: 'policy_invalid', path: 'pools.default.profiles.default.workflow' } } });
    }
    expect(queueTip(repo)).toBe(tip);
  });

  it('deploy --from-config records a revision whose workflow no longer declares work_queue_assignment as unavailable', async () => {
    const c0 = commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml() });
    expect((await cli(repo, '--request-id', 's', 'submit-work', '--file', payload)).code).toBe(0);
    const c1 = commitOnMain(repo, { [WORKER_WORKFLOW]: 'name: worker\non: workflow_dispatch\n' });
    expect((await cli(repo, '--request-id', 'd', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ status: 'deployed', from: c0, to: c1, available: false });
    const grant = await cli(repo, '--request-id', 'g', 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1');
    expect(grant.json.commit_id).toBeNull();
  });
});

describe('walkthrough: verified bootstrap, compatible and unavailable deployments, an authority change refused while running', () => {
  it('pinned and unpinned Work run the right revisions; an unavailable revision pauses only unpinned Work; a principal change is refused until drained (policy_not_quiescent)', async () => {
    const c0 = commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml('v0') });
    const submit = async (id: string, key: string, pin?: string) => {
      const r = await cli(repo, '--request-id', id, 'submit-work', '--file', payload, '--node-key', key, ...(pin === undefined ? [] : ['--execution-ref', pin]));
      expect(r.code).toBe(0);
      return r.json.work_ids[0] as string;
    };
    await submit('s-a', 'a');
    expect(profiles(repo).default.ref).toBe(c0);

    // A compatible revision: no drain; pinned Work keeps c0, unpinned Work follows the route.
    const c1 = commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml('v1') });
    expect((await cli(repo, '--request-id', 'd1', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ status: 'deployed', from: c0, to: c1 });
    await submit('s-p0', 'pinned-c0', c0);
    await submit('s-u', 'unpinned');
    const grantAll = async (prefix: string) => {
      let granted = 0;
      for (let i = 0; i < 8; i++) {
        const g = await cli(repo, '--request-id', `${prefix}-${i}`, 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1');
        if (g.json.commit_id === null) break;
        granted += g.json.granted_claims as number;
      }
      return granted;
    };
    expect(await grantAll('g1')).toBe(3);
    const refOf = (key: string) => {
      const s = state(repo);
      const w = [...s.works.values()].find((x) => x.nodeKey === key)!;
      return s.dispatches.get(s.claims.get(w.currentClaim!)!.dispatchId)!.profile.ref;
    };
    expect([refOf('a'), refOf('pinned-c0'), refOf('unpinned')]).toEqual([c1, c0, c1]);

    // The next revision is not a worker: unpinned Work waits (deployment_unavailable), pinned Work still runs.
    const c2 = commitOnMain(repo, { [WORKER_WORKFLOW]: 'name: worker\non: workflow_dispatch\n' });
    expect((await cli(repo, '--request-id', 'd2', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ from: c1, to: c2, available: false });
    const waiting = await submit('s-w', 'waiting');
    await submit('s-p1', 'pinned-c1', c1);
    expect(await grantAll('g2')).toBe(1);
    expect(refOf('pinned-c1')).toBe(c1);
    const w = [...state(repo).works.values()].find((x) => x.nodeKey === 'waiting')!;
    expect([w.state, w.attempts]).toEqual(['available', 0]);
    expect((await cli(repo, 'explain', '--pool', 'default', '--work-id', waiting)).json.reason).toBe('deployment_unavailable');

    // Changing authority (the approved principal) needs a drained Policy epoch: with groups running it is refused and
    // writes nothing (the drained epoch itself: 'policy --from-config keeps the deployed ref …' above).
    commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml('v3'), [WORKERS_FILE]: JSON.stringify({ workers: { default: { workflow: WORKER_WORKFLOW, principal: '5150' } } }) });
    const tip = queueTip(repo);
    const epoch = await cli(repo, '--request-id', 'p', 'policy', '--from-config', '--epoch', 'epoch-2');
    expect(epoch).toMatchObject({ code: 3, json: { error: { code: 'policy_not_quiescent' } } });
    expect(queueTip(repo)).toBe(tip);
    expect(profiles(repo).default).toMatchObject({ ref: c0, principal: '4242' });
  });
});
