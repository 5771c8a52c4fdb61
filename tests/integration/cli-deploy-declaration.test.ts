/**
 * `fairway deploy --from-config` consults the revision's worker source declaration (operator
 * reference "Worker evolution": "Availability comes from that revision's worker source
 * declaration, compiled assignment input and literal contract stamp"). When
 * `.github/work-queue-workers.json` declares the workers, a worker it no longer declares, or
 * declares with another workflow, is recorded unavailable (`worker_undeclared`) although its old
 * workflow file is still there; declaring it again makes it available. An invalid declaration
 * file publishes nothing (`workers_invalid`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { commitOnMain, git, repoCli } from '../support/fixture-repo.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';

const WORKERS = '.github/work-queue-workers.json';
const OTHER = '.github/workflows/other.yml';

const declare = (workers: Record<string, string>) => JSON.stringify({ workers: Object.fromEntries(Object.entries(workers).map(([name, workflow]) => [name, { workflow }])) });

/** The reason of the last Deployment on the queue branch. */
function lastDeploymentReason(repo: string): string {
  const lines = execFileSync('git', ['-C', repo, 'show', 'work-queue:work-queue.jsonl']).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
  const op = lines.flatMap((c) => c.operations).filter((o: { kind: string }) => o.kind === 'Deployment').pop();
  return op.reason;
}

let repo: string;

beforeEach(async () => {
  repo = mkdtempSync(join(tmpdir(), 'fairway-deploy-decl-'));
  const files = mkdtempSync(join(tmpdir(), 'fairway-deploy-decl-files-'));
  git(repo, 'init', '-q', '-b', 'main');
  commitOnMain(repo, { [WORKER_WORKFLOW]: workerWorkflowYaml('worker v0'), [OTHER]: workerWorkflowYaml('other v0'), [WORKERS]: declare({ default: WORKER_WORKFLOW }) });
  writeFileSync(join(files, 'p.json'), JSON.stringify({ task: 'x' }));
  expect((await repoCli(repo, '--request-id', 'seed', 'submit-work', '--file', join(files, 'p.json'), '--node-key', 'seed')).code).toBe(0);
});

describe('deploy --from-config and the workers declaration', () => {
  it('a worker the declaration no longer names is unavailable (worker_undeclared); declared again, available', async () => {
    const v1 = commitOnMain(repo, { [WORKERS]: declare({ renamed: WORKER_WORKFLOW }), [WORKER_WORKFLOW]: workerWorkflowYaml('worker v1') });
    const d1 = await repoCli(repo, '--request-id', 'deploy-1', 'deploy', '--from-config');
    expect(d1.code).toBe(0);
    expect(d1.json.deployments).toEqual([expect.objectContaining({ worker_profile: 'default', status: 'deployed', to: v1, available: false })]);
    expect(lastDeploymentReason(repo)).toBe('worker_undeclared');
    const paused = await repoCli(repo, '--request-id', 'grant-paused', 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1');
    expect(paused.json.commit_id).toBeNull();

    const v2 = commitOnMain(repo, { [WORKERS]: declare({ default: WORKER_WORKFLOW }) });
    expect((await repoCli(repo, '--request-id', 'deploy-2', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ status: 'deployed', from: v1, to: v2, available: true });
    expect((await repoCli(repo, '--request-id', 'grant', 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1')).json.granted_claims).toBe(1);
  });

  it('a declaration that moves the worker to another workflow makes the installed route unavailable (its authority is frozen)', async () => {
    const v1 = commitOnMain(repo, { [WORKERS]: declare({ default: OTHER }) });
    expect((await repoCli(repo, '--request-id', 'deploy-1', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ status: 'deployed', to: v1, available: false });
    expect(lastDeploymentReason(repo)).toBe('worker_undeclared');
  });

  it('the workflow\'s own state still decides a declared worker: a missing workflow is workflow_missing', async () => {
    git(repo, 'rm', '-q', WORKER_WORKFLOW);
    git(repo, 'commit', '-q', '-m', 'drop the worker');
    expect((await repoCli(repo, '--request-id', 'deploy-1', 'deploy', '--from-config')).json.deployments[0]).toMatchObject({ status: 'deployed', available: false });
    expect(lastDeploymentReason(repo)).toBe('workflow_missing');
  });

  it('an invalid declaration file publishes nothing: workers_invalid', async () => {
    commitOnMain(repo, { [WORKERS]: '{"workers": {"default": {"workflow": ".github/workflows/worker.yml", "extra": 1}}}' });
    const tip = git(repo, 'rev-parse', 'work-queue');
    const r = await repoCli(repo, '--request-id', 'deploy-1', 'deploy', '--from-config');
    expect(r.json).toMatchObject({ ok: false, error: { code: 'workers_invalid' } });
    expect(git(repo, 'rev-parse', 'work-queue')).toBe(tip);
  });
});
