/**
 * Idempotency as operators use it (issue 10 §5), on real temporary Git
 * repositories through the real CLI entry point: administrator commands
 * repeated with the same --request-id return the committed outcome, exact
 * resubmissions return the existing record, and admission errors name node
 * keys and paths.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { fixtureRepo, git, inputFiles, queueTip, repoCli } from '../support/fixture-repo.ts';

const tip = queueTip;
const cli = repoCli;

async function text(repo: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['--repo', repo, ...args], { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`) });
  return { code, out, err };
}

let repo: string;
let file: (name: string, value: unknown) => string;

beforeEach(() => {
  repo = fixtureRepo('fairway-idem-');
  file = inputFiles('fairway-idem-files-');
});

/** Admits `n` independent nodes in graph `g` and returns their Work ids in node order. */
async function seed(n: number): Promise<string[]> {
  const nodes = Array.from({ length: n }, (_, i) => ({ node_key: `n${i}`, payload: { i } }));
  const r = await cli(repo, '--request-id', 'seed', 'submit-graph', '--file', file('seed.json', nodes), '--graph-id', 'g');
  expect(r.code).toBe(0);
  return r.json.work_ids;
}

/** Runs the same command twice; the second must replay the first's commit and write nothing. */
async function twice(...args: string[]): Promise<{ first: any; again: any }> {
  const first = await cli(repo, ...args);
  expect(first.code, JSON.stringify(first.json)).toBe(0);
  expect(first.json.status).toBe('committed');
  const before = tip(repo);
  const again = await cli(repo, ...args);
  expect(again.code, JSON.stringify(again.json)).toBe(0);
  expect(again.json.status).toBe('request_replayed');
  expect(again.json.commit_id).toBe(first.json.commit_id);
  expect(tip(repo)).toBe(before);
  return { first, again };
}

describe('administrator commands repeated with the same --request-id return the committed outcome (request_replayed)', () => {
  it('reprioritize repeated with the same --request-id replays although expected_priority moved (request_replayed)', async () => {
    const ids = await seed(2);
    await twice('--request-id', 'up-1', 'reprioritize', '--work-id', ids[0]!, '--priority', '1', '--reason', 'urgent');
    const inspect = await cli(repo, 'inspect', '--work-id', ids[0]!);
    expect(inspect.json.effective_priority ?? inspect.json.work?.effective_priority).toBe(1);
  });

  it('reprioritize with the same --request-id but another priority is request_id_conflict', async () => {
    const ids = await seed(1);
    expect((await cli(repo, '--request-id', 'up-2', 'reprioritize', '--work-id', ids[0]!, '--priority', '1', '--reason', 'urgent')).code).toBe(0);
    const before = tip(repo);
    const other = await cli(repo, '--request-id', 'up-2', 'reprioritize', '--work-id', ids[0]!, '--priority', '2', '--reason', 'urgent');
    expect(other.code).toBe(3);
    expect(other.json.error.code).toBe('request_id_conflict');
    expect(tip(repo)).toBe(before);
  });

  it('control repeated with the same --request-id replays (request_replayed)', async () => {
    await seed(1);
    await twice('--request-id', 'pause-1', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident');
  });

  it('control repeated with the same --request-id after a later control changed the value still replays (request_replayed)', async () => {
    await seed(1);
    const first = await cli(repo, '--request-id', 'pause-2', 'control', '--name', 'admission_paused', '--paused', 'true', '--reason', 'incident');
    expect(first.code).toBe(0);
    expect((await cli(repo, 'control', '--name', 'admission_paused', '--paused', 'false', '--reason', 'resolved')).code).toBe(0);
    const before = tip(repo);
    const again = await cli(repo, '--request-id', 'pause-2', 'control', '--name', 'admission_paused', '--paused', 'true', '--reason', 'incident');
    expect(again.json.status).toBe('request_replayed');
    expect(again.json.commit_id).toBe(first.json.commit_id);
    expect(tip(repo)).toBe(before);
  });

  it('cancel-work repeated with the same --request-id replays although the Work is now cancelled (request_replayed)', async () => {
    const ids = await seed(2);
    await twice('--request-id', 'cancel-1', 'cancel-work', '--work-id', `${ids[0]},${ids[1]}`, '--reason', 'operator_cancelled');
  });

  it('cancel-work with the same --request-id naming other Work is request_id_conflict', async () => {
    const ids = await seed(2);
    expect((await cli(repo, '--request-id', 'cancel-2', 'cancel-work', '--work-id', ids[0]!, '--reason', 'operator_cancelled')).code).toBe(0);
    const other = await cli(repo, '--request-id', 'cancel-2', 'cancel-work', '--work-id', ids[1]!, '--reason', 'operator_cancelled');
    expect(other.json.error.code).toBe('request_id_conflict');
  });

  it('cancel-claim repeated with the same --request-id replays although the Claim is now closed (request_replayed)', async () => {
    await seed(2);
    const grant = await cli(repo, '--request-id', 'grant-1', 'dispatch-next', '--max-claims', '1');
    expect(grant.code).toBe(0);
    const claim = grant.json.claims[0].claim_id as string;
    await twice('--request-id', 'cancel-claim-1', 'cancel-claim', '--claim-id', claim, '--reason', 'operator_cancelled');
  });

  it('policy repeated with the same --request-id replays (request_replayed)', async () => {
    const ids = await seed(1);
    expect((await cli(repo, 'cancel-work', '--work-id', ids[0]!, '--reason', 'drain')).code).toBe(0);
    await twice('--request-id', 'policy-1', 'policy', '--from-config', '--epoch', 'epoch-2');
  });
});

describe("the operator reference's --request-id examples, verbatim", () => {
  it('cancel-claim --claim-id CLAIM_A,CLAIM_B --reason operator_cancelled --request-id incident-cancel, run twice, cancels once', async () => {
    await seed(2);
    const grant = await cli(repo, '--request-id', 'grant-2', 'dispatch-next', '--max-claims', '2', '--max-dispatches', '2');
    expect(grant.json.granted_claims).toBe(2);
    const [CLAIM_A, CLAIM_B] = grant.json.claims.map((c: { claim_id: string }) => c.claim_id);
    const args = ['cancel-claim', '--claim-id', `${CLAIM_A},${CLAIM_B}`, '--reason', 'operator_cancelled', '--request-id', 'incident-cancel'];
    await twice(...args);
  });

  it('reprioritize --work-id WORK_A,WORK_B --priority 1 --reason operator_reprioritized --request-id incident-priority, run twice, changes priority once', async () => {
    const [WORK_A, WORK_B] = await seed(2);
    const args = ['reprioritize', '--work-id', `${WORK_A},${WORK_B}`, '--priority', '1', '--reason', 'operator_reprioritized', '--request-id', 'incident-priority'];
    const { first } = await twice(...args);
    expect(first.json.request_id).toBe('incident-priority');
  });
});

describe('exact resubmission returns the existing record (spec 7.15, contract duplicate_node)', () => {
  const graph = [
    { node_key: 'inspect', payload: { plan: 'inspect' } },
    { node_key: 'review', payload: { plan: 'review' }, depends_on: [{ kind: 'work', node_key: 'inspect' }] },
  ];

  it('re-submitting identical nodes under a new request id is already_admitted: the existing records, no commit', async () => {
    const first = await cli(repo, '--request-id', 'g-1', 'submit-graph', '--file', file('g.json', graph), '--graph-id', 'sdk-migration');
    expect(first.json.status).toBe('committed');
    const before = tip(repo);
    await new Promise((r) => setTimeout(r, 5)); // a later decision time: the default enqueued differs, the node does not
    const again = await cli(repo, '--request-id', 'g-2', 'submit-graph', '--file', file('g.json', graph), '--graph-id', 'sdk-migration');
    expect(again.code).toBe(0);
    expect(again.json.status).toBe('already_admitted');
    expect(again.json.existing_work_ids).toEqual(first.json.work_ids);
    expect(again.json.admitted_commits).toEqual([first.json.commit_id]);
    expect(tip(repo)).toBe(before);
    const explain = await cli(repo, 'explain', '--request-id', 'g-2');
    expect(explain.json.error.code).toBe('unknown_request'); // consumed no request identity
  });

  it('a graph that repeats existing identical nodes while adding new ones admits only the new ones, in one commit, with edges to existing nodes resolved', async () => {
    expect((await cli(repo, '--request-id', 'g-1', 'submit-graph', '--file', file('g.json', graph), '--graph-id', 'sdk-migration')).code).toBe(0);
    const before = Number(git(repo, 'rev-list', '--count', 'work-queue'));
    const more = [...graph, { node_key: 'ship', payload: { plan: 'ship' }, depends_on: [{ kind: 'work', node_key: 'review' }, { kind: 'work', node_key: 'inspect' }] }];
    const r = await cli(repo, '--request-id', 'g-3', 'submit-graph', '--file', file('more.json', more), '--graph-id', 'sdk-migration');
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    expect(r.json.status).toBe('committed');
    expect(r.json.work_ids).toHaveLength(1);
    expect(r.json.existing_work_ids).toHaveLength(2);
    expect(Number(git(repo, 'rev-list', '--count', 'work-queue'))).toBe(before + 1);
    const ledger = git(repo, 'show', 'work-queue:work-queue.jsonl').split('\n');
    const last = JSON.parse(ledger[ledger.length - 1]!);
    expect(last.operations.map((o: { node_key: string }) => o.node_key)).toEqual(['ship']);
    const inspect = await cli(repo, 'inspect', '--work-id', r.json.work_ids[0]);
    expect(inspect.code).toBe(0);
    // Retrying the mixed request replays it (fingerprinted as of its commit, where the two nodes already existed).
    const retry = await cli(repo, '--request-id', 'g-3', 'submit-graph', '--file', file('more.json', more), '--graph-id', 'sdk-migration');
    expect(retry.json.status).toBe('request_replayed');
    expect(retry.json.commit_id).toBe(r.json.commit_id);
  });

  it('during admission_paused an exact resubmission still returns the existing record (already_admitted); a new node is admission_paused', async () => {
    expect((await cli(repo, 'submit-graph', '--file', file('g.json', graph), '--graph-id', 'sdk-migration')).code).toBe(0);
    expect((await cli(repo, 'control', '--name', 'admission_paused', '--paused', 'true', '--reason', 'freeze')).code).toBe(0);
    const before = tip(repo);
    const again = await cli(repo, 'submit-graph', '--file', file('g.json', graph), '--graph-id', 'sdk-migration');
    expect(again.code).toBe(0);
    expect(again.json.status).toBe('already_admitted');
    const fresh = await cli(repo, 'submit-graph', '--file', file('new.json', [...graph, { node_key: 'ship', payload: {} }]), '--graph-id', 'sdk-migration');
    expect(fresh.json.error.code).toBe('admission_paused');
    expect(fresh.json.error.message).toContain('node ship in graph sdk-migration');
    expect(tip(repo)).toBe(before);
  });

  it('a node that differs from the admitted one is inconsistent_resubmission with both definitions\' digests', async () => {
    expect((await cli(repo, 'submit-graph', '--file', file('g.json', graph), '--graph-id', 'sdk-migration')).code).toBe(0);
    const before = tip(repo);
    const changed = [graph[0], { ...graph[1], payload: { plan: 'review twice' } }];
    const r = await cli(repo, 'submit-graph', '--file', file('changed.json', changed), '--graph-id', 'sdk-migration');
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe('inconsistent_resubmission');
    expect(r.json.error.path).toBe('nodes.1');
    const d = r.json.error.details;
    expect(d).toMatchObject({ graph_id: 'sdk-migration', node_key: 'review' });
    expect(d.admitted_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(d.submitted_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(d.submitted_digest).not.toBe(d.admitted_digest);
    expect(r.json.error.message).toContain(d.admitted_digest);
    expect(r.json.error.message).toContain(d.submitted_digest);
    const priority = await cli(repo, 'submit-work', '--file', file('p.json', { plan: 'inspect' }), '--graph-id', 'sdk-migration', '--node-key', 'inspect', '--priority', '1');
    expect(priority.json.error.code).toBe('inconsistent_resubmission'); // a resubmission never updates priority (spec 7.2)
    expect(tip(repo)).toBe(before);
  });

  it('a submit retried under the same request id with a changed node is request_id_conflict, not replayed', async () => {
    expect((await cli(repo, '--request-id', 'g-1', 'submit-graph', '--file', file('g.json', graph), '--graph-id', 'sdk-migration')).code).toBe(0);
    expect((await cli(repo, '--request-id', 'g-4', 'submit-work', '--file', file('p.json', { x: 1 }), '--graph-id', 'sdk-migration', '--node-key', 'extra')).code).toBe(0);
    const r = await cli(repo, '--request-id', 'g-4', 'submit-work', '--file', file('q.json', { x: 2 }), '--graph-id', 'sdk-migration', '--node-key', 'extra');
    expect(r.json.error.code).toBe('request_id_conflict');
  });
});

describe('admission errors name node keys and paths, not hashed work ids', () => {
  it('dependency_missing: review -> inspect (not in graph sdk-migration)', async () => {
    expect((await cli(repo, 'submit-work', '--file', file('p.json', {}), '--node-key', 'seed')).code).toBe(0);
    const before = tip(repo);
    const r = await cli(repo, 'submit-graph', '--file', file('g.json', [{ node_key: 'review', payload: {}, depends_on: [{ kind: 'work', node_key: 'inspect' }] }]), '--graph-id', 'sdk-migration');
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe('dependency_missing');
    expect(r.json.error.message).toBe('review -> inspect (not in graph sdk-migration)');
    expect(r.json.error.path).toBe('nodes.0.depends_on.0');
    const human = await text(repo, 'submit-graph', '--file', file('g.json', [{ node_key: 'review', payload: {}, depends_on: [{ kind: 'work', node_key: 'inspect' }] }]), '--graph-id', 'sdk-migration');
    expect(human.err).toContain('dependency_missing: review -> inspect (not in graph sdk-migration) (at nodes.0.depends_on.0)');
    expect(tip(repo)).toBe(before);
  });

  it('a bootstrap graph with a missing predecessor says so by node key too (dependency_missing)', async () => {
    const r = await cli(repo, 'submit-graph', '--file', file('g.json', [{ node_key: 'review', payload: {}, depends_on: [{ kind: 'work', node_key: 'inspect' }] }]), '--graph-id', 'sdk-migration');
    expect(r.json.error.code).toBe('dependency_missing');
    expect(r.json.error.message).toBe('review -> inspect (not in graph sdk-migration)');
    expect(tip(repo)).toBeNull();
  });

  it('a duplicate node key inside one submission is duplicate_node_key, naming the key and both paths', async () => {
    expect((await cli(repo, 'submit-work', '--file', file('p.json', {}), '--node-key', 'seed')).code).toBe(0);
    const before = tip(repo);
    const r = await cli(repo, 'submit-graph', '--file', file('dup.json', [{ node_key: 'a', payload: {} }, { node_key: 'a', payload: { other: true } }]), '--graph-id', 'sdk-migration');
    expect(r.json.error.code).toBe('duplicate_node_key');
    expect(r.json.error.message).toBe('duplicate node key a in graph sdk-migration: nodes.0 and nodes.1');
    expect(r.json.error.path).toBe('nodes.1.node_key');
    expect(tip(repo)).toBe(before);
  });

  it('a self edge names the node (dependency_self)', async () => {
    const r = await cli(repo, 'submit-graph', '--file', file('self.json', [{ node_key: 'a', payload: {}, depends_on: [{ kind: 'work', node_key: 'a' }] }]), '--graph-id', 'g');
    expect(r.json.error.code).toBe('dependency_self');
    expect(r.json.error.message).toContain('a -> a');
  });

  it('an unknown pool names the node and path (unknown_pool)', async () => {
    expect((await cli(repo, 'submit-work', '--file', file('p.json', {}), '--node-key', 'seed')).code).toBe(0);
    const r = await cli(repo, 'submit-graph', '--file', file('pool.json', [{ node_key: 'gpu-job', payload: {}, pool: 'gpu' }]), '--graph-id', 'g');
    expect(r.json.error.code).toBe('unknown_pool');
    expect(r.json.error.message).toContain('node gpu-job (graph g)');
    expect(r.json.error.path).toBe('nodes.0.pool');
  });
});

describe('policy on an absent queue', () => {
  it('policy --from-config on a repository without a queue is queue_uninitialized, not a policy error', async () => {
    const r = await cli(repo, 'policy', '--from-config', '--epoch', 'epoch-2');
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe('queue_uninitialized');
    expect(tip(repo)).toBeNull();
    const file_ = await cli(repo, 'policy', '--file', file('policy.json', { not: 'a policy' }), '--epoch', 'epoch-2');
    expect(file_.code).toBe(3);
    expect(tip(repo)).toBeNull();
  });
});

describe('submit-work and the global options', () => {
  it('never writes the request id into the shared options: two submits in one process admit two Works', async () => {
    const { Command } = await import('commander');
    const { registerSubmit } = await import('../../cli/commands/submit.ts');
    const g = { dir: repo, json: true, principal: '1001' };
    const outputs: string[] = [];
    const program = new Command('fairway').exitOverride();
    registerSubmit(program, { io: { out: (s) => outputs.push(s), err: () => undefined }, globals: () => g, action: (fn) => async (...args) => fn(g, ...args) });
    const payload = file('p.json', { plan: 'x' });
    await program.parseAsync(['submit-work', '--file', payload], { from: 'user' });
    await program.parseAsync(['submit-work', '--file', payload], { from: 'user' });
    expect(g).toEqual({ dir: repo, json: true, principal: '1001' });
    const [first, second] = outputs.map((o) => JSON.parse(o) as { request_id: string; work_ids: string[]; status: string });
    expect(first!.status).toBe('committed');
    expect(second!.status).toBe('committed');
    expect(second!.request_id).not.toBe(first!.request_id);
    expect(second!.work_ids[0]).not.toBe(first!.work_ids[0]);
  });
});
