/**
 * `fairway deploy --from-config` on a real local Git repository (spec 7.10, issue 16 §1): the
 * writer derives the revision from the default branch and publishes Deployments that replay
 * accepts — administrator `control` requests whose CAS names the route's current ref and
 * contract — across successive revisions, an unavailable revision and back; future grants
 * run the deployed revision while earlier groups keep their frozen profile.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { installedContract } from '../../engine/replay/ops/deployment.ts';
import { replayLedger } from '../../engine/replay/index.ts';

const WORKFLOW = '.github/workflows/worker.lock.yml';

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }).trim();
}

async function cli(repo: string, ...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await main(['--repo', repo, '--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

function commitOnMain(repo: string, files: Record<string, string | null>): string {
  for (const [path, body] of Object.entries(files)) {
    if (body === null) rmSync(join(repo, path));
    else {
      mkdirSync(join(repo, path, '..'), { recursive: true });
      writeFileSync(join(repo, path), body);
    }
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'worker change');
  return git(repo, 'rev-parse', 'main');
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
  git(repo, 'add', 'README.md');
  git(repo, 'commit', '-q', '-m', 'init');
});

describe('fairway deploy on a local Git repository', () => {
  it('publishes Deployments replay accepts across successive revisions; future grants run the deployed revision, earlier groups keep theirs', async () => {
    const nodes = Array.from({ length: 3 }, (_, i) => ({ node_key: `n${i}`, payload: { i } }));
    writeFileSync(join(files, 'g.json'), JSON.stringify(nodes));
    expect((await cli(repo, '--request-id', 'graph', 'submit-graph', '--file', join(files, 'g.json'))).code).toBe(0);
    const first = await cli(repo, '--request-id', 'grant-1', 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1');
    expect(first.json.granted_claims).toBe(1);
    const installedRef = ledger(repo).state.dispatches.values().next().value!.profile.ref as string;

    // The worker workflow lands on the default branch: a compatible Deployment, nothing drained.
    const v1 = commitOnMain(repo, { [WORKFLOW]: 'name: worker v1\n' });
    const d1 = await cli(repo, '--request-id', 'deploy-1', 'deploy', '--from-config');
    expect(d1.code).toBe(0);
    expect(d1.json.deployments).toEqual([expect.objectContaining({ pool: 'default', worker_profile: 'default', status: 'deployed', from: installedRef, to: v1, available: true })]);
    expect((await cli(repo, '--request-id', 'deploy-1b', 'deploy', '--from-config')).json.deployments[0].status).toBe('unchanged');

    // A second revision: the CAS names the deployed route (v1), not the installed Policy's ref.
    const v2 = commitOnMain(repo, { 'src/worker.ts': 'v2\n' });
    const d2 = await cli(repo, '--request-id', 'deploy-2', 'deploy', '--from-config', '--pool', 'default', '--worker-profile', 'default');
    expect(d2.json.deployments[0]).toMatchObject({ status: 'deployed', from: v1, to: v2, available: true });

    // The workflow disappears: the new revision is recorded unavailable and pauses only its Work.
    const v3 = commitOnMain(repo, { [WORKFLOW]: null });
    expect((await cli(repo, '--request-id', 'deploy-3', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ status: 'deployed', from: v2, to: v3, available: false });
    const paused = await cli(repo, '--request-id', 'grant-paused', 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1');
    expect(paused.json.commit_id).toBeNull();
    const pending = [...ledger(repo).state.works.values()].find((w) => w.state === 'available')!;
    const explained = await cli(repo, 'explain', '--pool', 'default', '--work-id', pending.workId);
    expect(JSON.stringify(explained.json)).toContain('deployment_unavailable');
    const v4 = commitOnMain(repo, { [WORKFLOW]: 'name: worker v4\n' });
    expect((await cli(repo, '--request-id', 'deploy-4', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ status: 'deployed', from: v3, to: v4, available: true });
    const second = await cli(repo, '--request-id', 'grant-2', 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1');
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

  it('deploy on an uninitialized repository writes nothing (queue_uninitialized)', async () => {
    const r = await cli(repo, 'deploy', '--from-config');
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe('queue_uninitialized');
  });
});
