/**
 * `fairway deploy --from-config` on a real local Git repository (spec 7.10, issue 16 §1): the
 * writer derives the revision from the default branch and publishes Deployments that replay
 * accepts — administrator `control` requests whose CAS names the route's current ref and
 * contract — across successive revisions, an unavailable revision and back; future grants
 * run the deployed revision while earlier groups keep their frozen profile.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { commitOnMain, git, repoCli } from '../support/fixture-repo.ts';
import { workId } from '../../engine/identity/index.ts';
import type { JsonObject } from '../../engine/json.ts';
import { installedContract } from '../../engine/replay/ops/deployment.ts';
import { bootstrapRequest, operationsRequest, submitRequest } from '../../engine/requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../../engine/requests/writer.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';

const WORKFLOW = WORKER_WORKFLOW;

function ledgerRef(repo: string): string {
  return (ledger(repo).state.policy!.policy.pools as any).default.profiles.default.ref;
}

function ledger(repo: string) {
  const bytes = execFileSync('git', ['-C', repo, 'show', 'work-queue:work-queue.jsonl']);
  return { lines: bytes.toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l)), state: replayLedger(new Uint8Array(bytes)).state };
}

let repo: string;
let files: string;

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'fairway-deploy-'));
  files = mkdtempSync(join(tmpdir(), 'fairway-deploy-files-'));
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), 'project\n');
  mkdirSync(join(repo, '.github/workflows'), { recursive: true });
  writeFileSync(join(repo, WORKFLOW), workerWorkflowYaml('worker v0'));
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'init');
});

describe('fairway deploy on a local Git repository', () => {
  it('publishes Deployments replay accepts across successive revisions; future grants run the deployed revision, earlier groups keep theirs', async () => {
    const nodes = Array.from({ length: 3 }, (_, i) => ({ node_key: `n${i}`, payload: { i } }));
    writeFileSync(join(files, 'g.json'), JSON.stringify(nodes));
    expect((await repoCli(repo, '--request-id', 'graph', 'submit-graph', '--file', join(files, 'g.json'))).code).toBe(0);
    const first = await repoCli(repo, '--request-id', 'grant-1', 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1');
    expect(first.json.granted_claims).toBe(1);
    const installedRef = ledger(repo).state.dispatches.values().next().value!.profile.ref as string;

    // A new worker revision lands on the default branch: a compatible Deployment, nothing drained.
    const v1 = commitOnMain(repo, { [WORKFLOW]: workerWorkflowYaml('worker v1') });
    const d1 = await repoCli(repo, '--request-id', 'deploy-1', 'deploy', '--from-config');
    expect(d1.code).toBe(0);
    expect(d1.json.deployments).toEqual([expect.objectContaining({ pool: 'default', worker_profile: 'default', status: 'deployed', from: installedRef, to: v1, available: true })]);
    expect((await repoCli(repo, '--request-id', 'deploy-1b', 'deploy', '--from-config')).json.deployments[0].status).toBe('unchanged');

    // A second revision: the CAS names the deployed route (v1), not the installed Policy's ref.
    const v2 = commitOnMain(repo, { 'src/worker.ts': 'v2\n' });
    const d2 = await repoCli(repo, '--request-id', 'deploy-2', 'deploy', '--from-config', '--pool', 'default', '--worker-profile', 'default');
    expect(d2.json.deployments[0]).toMatchObject({ status: 'deployed', from: v1, to: v2, available: true });
    // deploy-1's id again now that the default branch is at v2: another request, not a replay of v1's Deployment.
    const tip = git(repo, 'rev-parse', 'work-queue');
    const reused = await repoCli(repo, '--request-id', 'deploy-1', 'deploy', '--from-config');
    expect(JSON.stringify(reused.json)).toContain('request_id_conflict');
    expect(git(repo, 'rev-parse', 'work-queue')).toBe(tip);

    // The workflow disappears: the new revision is recorded unavailable and pauses only its Work.
    const v3 = commitOnMain(repo, { [WORKFLOW]: null });
    expect((await repoCli(repo, '--request-id', 'deploy-3', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ status: 'deployed', from: v2, to: v3, available: false });
    const paused = await repoCli(repo, '--request-id', 'grant-paused', 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1');
    expect(paused.json.commit_id).toBeNull();
    const pending = [...ledger(repo).state.works.values()].find((w) => w.state === 'available')!;
    const explained = await repoCli(repo, 'explain', '--pool', 'default', '--work-id', pending.workId);
    expect(JSON.stringify(explained.json)).toContain('deployment_unavailable');
    const v4 = commitOnMain(repo, { [WORKFLOW]: workerWorkflowYaml('worker v4') });
    expect((await repoCli(repo, '--request-id', 'deploy-4', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ status: 'deployed', from: v3, to: v4, available: true });
    const second = await repoCli(repo, '--request-id', 'grant-2', 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1');
    expect(second.json.granted_claims).toBe(1);

    const { lines, state } = ledger(repo);
    const deployments = lines.filter((c) => c.operations.some((o: { kind: string }) => o.kind === 'Deployment'));
    expect(deployments.map((c) => [c.request.kind, c.actor.role])).toEqual(Array(4).fill(['control', 'administrator']));
    const installed = (state.policy!.policy.pools as any).default.profiles.default;
    expect(installed.ref).toBe(installedRef); // the installed Policy is never rewritten
    expect(deployments.map((c) => [c.operations[0].expected_ref, c.operations[0].expected_contract, c.operations[0].profile.ref])).toEqual([
      [installedRef, installedContract(installed), v1], [v1, installedContract(installed), v2], [v2, installedContract(installed), v3], [v3, installedContract(installed), v4],
    ]);
    expect([...state.dispatches.values()].map((g) => g.profile.ref)).toEqual([installedRef, v4]);
  });

  it('submit-work --execution-ref pins a registered revision across deployments; unpinned Work follows the route and pauses when it is unavailable', async () => {
    writeFileSync(join(files, 'p.json'), JSON.stringify({ task: 'x' }));
    const payload = join(files, 'p.json');
    expect((await repoCli(repo, '--request-id', 'seed', 'submit-work', '--file', payload, '--node-key', 'seed')).code).toBe(0);
    const v1 = commitOnMain(repo, { [WORKFLOW]: workerWorkflowYaml('worker v1') });
    expect((await repoCli(repo, '--request-id', 'deploy-1', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ status: 'deployed', to: v1 });

    const tipBefore = git(repo, 'rev-parse', 'work-queue');
    const unregistered = await repoCli(repo, '--request-id', 'pin-x', 'submit-work', '--file', payload, '--node-key', 'pin-x', '--execution-ref', 'd'.repeat(40));
    expect(unregistered).toMatchObject({ code: 3, json: { ok: false, error: { code: 'execution_ref_unregistered' } } });
    // Not a full commit SHA: a usage error of the flag (exit 2), found before anything is read.
    expect(await repoCli(repo, '--request-id', 'pin-bad', 'submit-work', '--file', payload, '--execution-ref', 'main')).toMatchObject({ code: 2, json: { ok: false, error: { code: 'option_invalid' } } });
    expect(git(repo, 'rev-parse', 'work-queue')).toBe(tipBefore);

    const pinned = await repoCli(repo, '--request-id', 'pin-1', 'submit-work', '--file', payload, '--node-key', 'pinned', '--execution-ref', v1);
    expect(pinned.code).toBe(0);
    expect((await repoCli(repo, '--request-id', 'pin-1', 'submit-work', '--file', payload, '--node-key', 'pinned', '--execution-ref', v1)).json.status).toBe('request_replayed');
    // A different (registered) pin for the admitted Work: rejected, as a new request and as a reused request id.
    const tipPinned = git(repo, 'rev-parse', 'work-queue');
    const changed = await repoCli(repo, '--request-id', 'pin-2', 'submit-work', '--file', payload, '--node-key', 'pinned', '--execution-ref', ledgerRef(repo));
    expect(changed).toMatchObject({ code: 3, json: { error: { code: 'inconsistent_resubmission' } } });
    const reused = await repoCli(repo, '--request-id', 'pin-1', 'submit-work', '--file', payload, '--node-key', 'pinned', '--execution-ref', ledgerRef(repo));
    expect(reused.code).toBe(3);
    expect(git(repo, 'rev-parse', 'work-queue')).toBe(tipPinned);
    writeFileSync(join(files, 'g.json'), JSON.stringify([{ node_key: 'graph-pinned', payload: { g: 1 }, execution_ref: v1 }, { node_key: 'graph-free', payload: { g: 2 } }]));
    expect((await repoCli(repo, '--request-id', 'graph', 'submit-graph', '--file', join(files, 'g.json'))).code).toBe(0);

    // The workflow disappears from the default branch: the new revision is unavailable.
    const v2 = commitOnMain(repo, { [WORKFLOW]: null });
    expect((await repoCli(repo, '--request-id', 'deploy-2', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ status: 'deployed', to: v2, available: false });
    // A retry of the pinned submission after the deployment is the same accepted request: the pin and contract stay.
    expect((await repoCli(repo, '--request-id', 'pin-1', 'submit-work', '--file', payload, '--node-key', 'pinned', '--execution-ref', v1)).json.status).toBe('request_replayed');
    const grant = await repoCli(repo, '--request-id', 'grant', 'dispatch-next', '--max-claims', '8', '--max-dispatches', '8');
    expect(grant.json.granted_claims).toBe(2);
    const { state } = ledger(repo);
    const byKey = new Map([...state.works.values()].map((w) => [w.nodeKey, w]));
    const refOf = (key: string) => state.dispatches.get(state.claims.get(byKey.get(key)!.currentClaim!)!.dispatchId)!.profile.ref;
    expect([refOf('pinned'), refOf('graph-pinned')]).toEqual([v1, v1]);
    expect([byKey.get('seed')!.state, byKey.get('graph-free')!.state, byKey.get('graph-free')!.attempts]).toEqual(['available', 'available', 0]);
    const explained = await repoCli(repo, 'explain', '--pool', 'default', '--work-id', byKey.get('graph-free')!.workId);
    expect(JSON.stringify(explained.json)).toContain('deployment_unavailable');
  });

  it('explain names contract_incompatible for unpinned Work admitted before an incompatible Deployment; a successor admitted after it waits on it (dependency_wait)', async () => {
    const policy = defaultPolicy({ repository: 'acme/queue', principal: '1001' });
    const admin: Actor = { role: 'administrator', principal: '1001', repository: 'acme/queue' };
    const w = new LedgerWriter();
    w.publish('bootstrap', { ...admin, role: 'producer' }, 1000, bootstrapRequest(policy, 'epoch-1', [{ node_key: 'old', payload: {} }], { graphId: 'g', at: 1000 }));
    const profile = ((policy.pools as Record<string, JsonObject>).default!.profiles as Record<string, JsonObject>).default!;
    w.publish('deploy', admin, 2000, operationsRequest('control', [{
      kind: 'Deployment', pool: 'default', worker_profile: 'default', expected_ref: String(profile.ref), expected_contract: installedContract(profile),
      profile: { ...profile, ref: 'b'.repeat(40), logical_contract: 'e'.repeat(64) }, available: true, reason: 'compiler_deployment',
    }]));
    // Admitted after the Deployment: it froze the new contract and only waits on its predecessor.
    w.publish('later', { ...admin, role: 'producer' }, 2500, submitRequest(w.state, [{ node_key: 'next', payload: {}, depends_on: [{ kind: 'work', node_key: 'old' }] }], { graphId: 'g', at: 2500 }));
    const path = join(files, 'work-queue.jsonl');
    writeFileSync(path, w.text());
    const explain = async (key: string) => {
      let out = '';
      await main(['--ledger', path, '--json', 'explain', '--pool', 'default', '--work-id', workId('g', key), '--as-of', '3000'], { out: (x) => (out += x), err: () => undefined });
      return JSON.parse(out);
    };
    expect(await explain('old')).toMatchObject({ ok: true, reason: 'contract_incompatible' });
    const successor = await explain('next');
    expect(successor.reason).toBe('dependency_wait');
    expect(JSON.stringify(successor.blocking_path)).toContain(workId('g', 'old'));
  });

  it('deploy on an uninitialized repository writes nothing (queue_uninitialized)', async () => {
    const r = await repoCli(repo, 'deploy', '--from-config');
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe('queue_uninitialized');
  });
});
