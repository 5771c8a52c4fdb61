/**
 * The operator reference's code block "Keyboard browser and checked actions"
 * (../shared/spec/work-queues-operator-reference.md), each command as written with
 * `--repo owner/repo` (Fairway's `-R/--repo OWNER/REPO`, like gh) through the real entry point,
 * against the fake GitHub (tests/fake-github/) holding a queue admitted and granted through the CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { FAKE_USER, seedCommit } from '../fake-github/state.ts';
import { runCaptured, type CapturedRun } from '../support/cli.ts';
import { inputFiles } from '../support/fixture-repo.ts';
import { SDK_GRAPH } from '../support/operator-queue.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';

const ENV = ['GH_TOKEN', 'GITHUB_TOKEN', 'GH_HOST', 'FAIRWAY_GITHUB_API_URL', 'FAIRWAY_PRINCIPAL', 'FAIRWAY_GITHUB_STORE_API'] as const;
let fake: FakeGitHub;
let saved: Record<string, string | undefined>;
let slug: string;
const file = inputFiles('fairway-opref-gh-in-');

function fairway(...args: string[]): Promise<CapturedRun> {
  return runCaptured(args);
}

let work: string[];
let claims: string[];

beforeAll(async () => {
  saved = Object.fromEntries(ENV.map((v) => [v, process.env[v]]));
  for (const v of ENV) delete process.env[v];
  fake = await createFakeGitHub();
  const repo = fake.state.createRepo('owner', 'repo');
  seedCommit(repo, 'main', { 'README.md': '# x\n', [WORKER_WORKFLOW]: workerWorkflowYaml() });
  slug = `${repo.owner}/${repo.name}`;
  Object.assign(process.env, { GH_TOKEN: 'ghp_operator', FAIRWAY_GITHUB_API_URL: fake.url, FAIRWAY_PRINCIPAL: String(FAKE_USER.id) });
  const sub = await fairway('--repo', slug, '--json', 'submit-graph', '--file', file('graph.json', SDK_GRAPH), '--graph-id', 'sdk');
  expect(sub.code, sub.out).toBe(0);
  work = sub.json.work_ids;
  const grant = await fairway('--repo', slug, '--json', 'dispatch-next', '--pool', 'default', '--max-claims', '2', '--max-dispatches', '2');
  expect(grant.code, grant.out).toBe(0);
  claims = grant.json.claims.map((c: { claim_id: string }) => c.claim_id);
});

afterAll(async () => {
  await fake?.close();
  for (const v of ENV) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
});

describe('operator reference: keyboard browser and checked actions, with --repo owner/repo', () => {
  it('gh aw work-queue --repo owner/repo tui: fairway --repo owner/repo tui (refuses --json; a terminal is needed)', async () => {
    const json = await fairway('--repo', slug, 'tui', '--json');
    expect([json.code, json.json.error.code]).toEqual([2, 'option_invalid']);
  });

  it('dispatch-next with --repo owner/repo: commits the assignments and their reservations but sends no workflow-dispatch POST (not proof of launch)', async () => {
    expect(fake.requests.length).toBeGreaterThan(0); // the submission and the grant went through this fake
    expect(fake.requests.filter((r) => r.method === 'POST' && /\/actions\/workflows\/[^/]+\/dispatches$/.test(r.path))).toEqual([]);
    expect(fake.requests.filter((r) => r.path.includes('/actions/'))).toEqual([]); // nor any Actions call at all
    const claim = await fairway('--repo', slug, '--json', 'inspect', '--claim-id', claims[0]!);
    expect(claim.json.dispatch).toMatchObject({ state: 'reserved', run: null, released: false });
  });

  it('gh aw work-queue --repo owner/repo state --json --limit 80', async () => {
    const page = await fairway('--repo', slug, 'state', '--json', '--limit', '80');
    expect(page.code, page.out).toBe(0);
    expect(page.json).toMatchObject({ ok: true, offset: 0, limit: 80, next_offset: null, total: 7 });
    expect(page.json.rows.filter((r: { kind: string }) => r.kind === 'work').map((r: { work_id: string }) => r.work_id)).toEqual(work);
  });

  it('gh aw work-queue --repo owner/repo cancel-claim --claim-id CLAIM_A,CLAIM_B --reason operator_cancelled --request-id incident-cancel', async () => {
    const args = ['--repo', slug, 'cancel-claim', '--claim-id', claims.join(','), '--reason', 'operator_cancelled', '--request-id', 'incident-cancel'];
    const cancel = await fairway(...args);
    expect(cancel.code, cancel.out + cancel.err).toBe(0);
    expect(cancel.out).toMatch(/^Claims cancelled: commit q_[0-9a-f]{64} \(request incident-cancel\)\n$/);
    const retry = await fairway(...args, '--json'); // the same logical publication: replayed, not applied twice
    expect(retry.json).toMatchObject({ ok: true, status: 'request_replayed', request_id: 'incident-cancel', kind: 'cancel_work' });
    const state = await fairway('--repo', slug, 'state', '--json', '--state', 'cancelled');
    expect(state.json.rows.filter((r: { kind: string }) => r.kind === 'work').map((r: { work_id: string }) => r.work_id)).toEqual([work[0], work[2]]); // code and x, the two granted
  });

  it('gh aw work-queue --repo owner/repo reprioritize --work-id WORK_A,WORK_B --priority 1 --reason operator_reprioritized --request-id incident-priority', async () => {
    const targets = [work[1]!, work[3]!]; // docs and y, still available
    const args = ['--repo', slug, 'reprioritize', '--work-id', targets.join(','), '--priority', '1', '--reason', 'operator_reprioritized', '--request-id', 'incident-priority'];
    const up = await fairway(...args);
    expect(up.code, up.out + up.err).toBe(0);
    expect(up.out).toMatch(/^priority 1: commit q_[0-9a-f]{64} \(request incident-priority\)\n$/);
    expect((await fairway(...args, '--json')).json.status).toBe('request_replayed');
    const rows = (await fairway('--repo', slug, 'state', '--json')).json.rows.filter((r: { kind: string; work_id: string }) => r.kind === 'work' && targets.includes(r.work_id));
    expect(rows.map((r: { effective_priority: number }) => r.effective_priority)).toEqual([1, 1]);
  });
});
