/**
 * GitHub requests per operation (issue 13 §3, "2 GitHub requests per checked publication"):
 * a cold process's checked read + publication, and a warm publisher's next one, through the
 * real `Publisher` on the GraphQL store and on the REST store, against the schema-validated
 * fake GitHub (tests/fake-github). Counts every HTTP request the store makes.
 */
import type { Projection } from '../engine/replay/index.ts';
import { bootstrapRequest, submitRequest } from '../engine/requests/operations.ts';
import { defaultWorkQueueSettings, policyFromSettings } from '../lib/config/aw.ts';
import { Publisher } from '../lib/publisher/publisher.ts';
import { GitHubGraphqlStore } from '../lib/store/github-graphql.ts';
import { GitHubStore } from '../lib/store/github.ts';
import type { LedgerStore } from '../lib/store/types.ts';
import { createFakeGitHub } from '../tests/fake-github/server.ts';
import { FAKE_USER, seedCommit } from '../tests/fake-github/state.ts';

export interface RequestsRow { store: string; operation: string; requests: number; violations: number }

export async function runRequestsBench(): Promise<RequestsRow[]> {
  const fake = await createFakeGitHub();
  const rows: RequestsRow[] = [];
  try {
    for (const kind of ['graphql', 'rest'] as const) {
      const repo = fake.state.createRepo('bench-org', `queue-${kind}`);
      seedCommit(repo, 'main', { 'README.md': '# project\n' }, 'initial commit');
      const ref = seedCommit(repo, 'main', { '.github/workflows/worker.lock.yml': 'on: workflow_dispatch\n' });
      const repository = `${repo.owner}/${repo.name}`;
      const options = { owner: repo.owner, repo: repo.name, token: 'bench-token', baseUrl: fake.url, writeIntervalMs: 0, retryBaseMs: 5, lag: { baseMs: 5 } };
      const store = (): LedgerStore => (kind === 'graphql' ? new GitHubGraphqlStore(options) : new GitHubStore(options));
      const policy = policyFromSettings(defaultWorkQueueSettings(), { repository, principal: String(FAKE_USER.id), profile: { ref } });
      const actor = { role: 'producer' as const, principal: String(FAKE_USER.id), repository };
      const submit = (id: string) => ({
        requestId: id, actor,
        prepare: (projection: Projection, ids: { at: number }) => submitRequest(projection.state, [{ node_key: id, payload: { plan: id } }], { graphId: `g-${id}`, at: ids.at }),
        bootstrap: (ids: { at: number }) => bootstrapRequest(policy, 'epoch-1', [{ node_key: id, payload: { plan: id } }], { graphId: `g-${id}`, at: ids.at }),
      });
      const count = async (operation: string, fn: () => Promise<unknown>): Promise<void> => {
        const from = fake.requests.length;
        const bad = fake.violations.length;
        const out = (await fn()) as { status?: string };
        if (out.status !== 'committed') throw new Error(`${kind} ${operation}: ${out.status}`);
        rows.push({ store: kind, operation, requests: fake.requests.length - from, violations: fake.violations.length - bad });
      };
      await new Publisher(store()).publish(submit('genesis'));
      await count('cold process: checked read + publication', () => new Publisher(store()).publish(submit('cold')));
      const warm = new Publisher(store());
      await warm.publish(submit('warm-1'));
      await count('warm publisher: next publication', () => warm.publish(submit('warm-2')));
    }
  } finally {
    await fake.close();
  }
  return rows;
}
