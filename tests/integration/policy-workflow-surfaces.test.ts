/**
 * A Policy profile's workflow must be a file directly under .github/workflows (the rule replay
 * judges, engine/replay/ops/profile-workflows.ts): the console's `POST /api/admin/policy` handler
 * and its preview refuse one elsewhere with the code and message `fairway policy --file` gives, and
 * nothing reaches the queue branch. One real Git repository, drained so that only the workflow can
 * decide; a conforming Policy then commits through the same handler.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { replayLedger } from '../../engine/replay/index.ts';
import type { Viewer } from '../../lib/auth/guard.ts';
import { handleAdminAction, handleAdminPreview } from '../../lib/console/admin/handler.ts';
import { resetRuntime } from '../../lib/console/context.ts';
import { ConsoleRuntime } from '../../lib/console/runtime.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { installConsoleRuntime } from '../support/console-runtime.ts';
import { fixtureRepo, git, inputFiles, queueTip, repoCli } from '../support/fixture-repo.ts';

const PRINCIPAL = '1001';
const ADMIN: Viewer = { role: 'administrator', name: 'admin', principal: PRINCIPAL };
const session = (): Promise<Viewer | null> => Promise.resolve(ADMIN);
const FIELD = 'pools.default.profiles.default.workflow';

type Profiles = { pools: { default: { profiles: { default: { workflow: string } } } } };

afterEach(() => resetRuntime());

function post(path: string, body: unknown): Request {
  return new Request(`http://127.0.0.1:3000${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:3000' }, body: JSON.stringify(body) });
}

/** A queue bootstrapped by the CLI on a real repository, then drained (its one Work cancelled). */
async function drainedQueue(): Promise<{ repo: string; installed: Profiles }> {
  const repo = fixtureRepo('fairway-policy-workflow-');
  const file = inputFiles('fairway-policy-workflow-files-');
  const seeded = await repoCli(repo, '--principal', PRINCIPAL, '--request-id', 'seed', 'submit-work', '--file', file('p.json', { task: 'x' }));
  expect(seeded.code).toBe(0);
  expect((await repoCli(repo, '--principal', PRINCIPAL, '--request-id', 'drain', 'cancel-work', '--work-id', seeded.json.work_ids[0], '--reason', 'operator_cancelled')).code).toBe(0);
  const ledger = new Uint8Array(Buffer.from(git(repo, 'show', 'work-queue:work-queue.jsonl') + '\n'));
  return { repo, installed: replayLedger(ledger).state.policy!.policy as unknown as Profiles };
}

describe('the console policy action refuses a profile workflow outside .github/workflows', () => {
  it('POST /api/admin/policy and its preview answer 422 policy_invalid with the CLI\'s message; the queue branch does not move; a conforming workflow commits', async () => {
    const { repo, installed } = await drainedQueue();
    installConsoleRuntime(new ConsoleRuntime({ source: { kind: 'repo', repo, branch: 'work-queue' }, demo: false, mode: 'local', pollMs: 5000, principal: PRINCIPAL }, new LocalGitStore({ repo })));
    const file = inputFiles('fairway-policy-workflow-cli-');
    const tip = queueTip(repo);

    for (const workflow of ['README.md', 'tools/worker.lock.yml', '.github/workflows/../../README.md', '.github/workflows/sub/worker.lock.yml']) {
      const policy = structuredClone(installed);
      policy.pools.default.profiles.default.workflow = workflow;
      const body = { epoch: 'epoch-2', policy };

      const action = await handleAdminAction('policy', post('/api/admin/policy', body), session);
      const answer = (await action.json()) as { ok: boolean; error: { code: string; message: string } };
      expect({ status: action.status, answer }, workflow).toMatchObject({ status: 422, answer: { ok: false, error: { code: 'policy_invalid' } } });
      expect(answer.error.message, workflow).toContain(`${FIELD} ${JSON.stringify(workflow)}`);

      const preview = await handleAdminPreview(post('/api/admin/preview', { action: 'policy', body }), session);
      expect(preview.status, workflow).toBe(422);
      expect(await preview.json(), workflow).toEqual({ ok: false, error: answer.error });

      // `fairway policy --file` gives the same code and message (and names the field).
      const cli = await repoCli(repo, '--principal', PRINCIPAL, '--request-id', 'cli-policy', 'policy', '--file', file('policy.json', policy), '--epoch', 'epoch-2');
      expect(cli, workflow).toMatchObject({ code: 3, json: { ok: false, error: { code: 'policy_invalid', message: answer.error.message, path: FIELD } } });

      expect(queueTip(repo), workflow).toBe(tip);
    }

    // Control: the installed Policy (its workflow directly under .github/workflows) commits as epoch-2.
    const ok = await handleAdminAction('policy', post('/api/admin/policy', { epoch: 'epoch-2', policy: installed }), session);
    expect({ status: ok.status, body: await ok.json() }).toMatchObject({ status: 200, body: { ok: true, status: 'committed' } });
    expect(queueTip(repo)).not.toBe(tip);
  });
});
