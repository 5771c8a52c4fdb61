/**
 * The queue the reusable Action's tests start from (action.test.ts, action-ghes.test.ts): a
 * repository `acme/queue` on the stand-in with the worker workflow and backing Issues on, that
 * workflow registered (its runs named after their dispatch), and a queue bootstrapped through the
 * GitHub store with one Work `task`.
 */
import { titleToken } from '../../engine/lifecycle/run-identity.ts';
import { bootstrapRequest } from '../../engine/requests/operations.ts';
import { defaultWorkQueueSettings, policyFromSettings } from '../../lib/config/aw.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { GitHubStore } from '../../lib/store/github.ts';
import { registerWorkflow } from '../fake-github/routes-actions.ts';
import type { FakeGitHub } from '../fake-github/server.ts';
import { seedCommit } from '../fake-github/state.ts';
import { workerWorkflowYaml } from '../support/worker-workflow.ts';
import { PRINCIPAL, REPOSITORY, TOKEN, WORKFLOW } from './harness.ts';

export async function actionQueue(fake: FakeGitHub) {
  const repo = fake.state.createRepo('acme', 'queue');
  const ref = seedCommit(repo, 'main', { [WORKFLOW]: workerWorkflowYaml(), '.github/workflows/aw.json': '{"work_queue": {"issues": true}}' });
  registerWorkflow(fake.state, repo, {
    path: WORKFLOW, name: 'worker', inputs: ['work_queue_assignment'],
    runName: (inputs) => `worker ${titleToken((JSON.parse(String(inputs.work_queue_assignment)) as { dispatch_id: string }).dispatch_id)}`,
  });
  const store = new GitHubStore({ owner: 'acme', repo: 'queue', token: TOKEN, baseUrl: fake.url, writeIntervalMs: 0 });
  const policy = policyFromSettings(defaultWorkQueueSettings(), { repository: REPOSITORY, principal: PRINCIPAL, profile: { ref } });
  await new Publisher(store).publish({
    requestId: 'seed', actor: { role: 'producer', principal: PRINCIPAL, repository: REPOSITORY },
    prepare: () => { throw new Error('bootstraps'); },
    bootstrap: (ids) => bootstrapRequest(policy, 'epoch-1', [{ node_key: 'task', payload: { plan: 'do it' } }], { graphId: 'g', at: ids.at }),
  });
  return { repo, ref, store };
}
