/**
 * Issue/PR gates (spec 7.16; §8.2 "GitHub conditions", "Typed foreign resources",
 * "DAG node kinds"): the resolver validates type and identity, reads merge status only from
 * the Pulls endpoint, records every failure as unknown, deduplicates reads per resource and
 * binds fresh satisfying Observations into the same dispatch_next commit as their Claims.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { workId } from '../../engine/identity/index.ts';
import type { JsonObject } from '../../engine/json.ts';
import type { SubmitNode } from '../../engine/requests/operations.ts';
import { eligibility } from '../../engine/scheduler/eligibility.ts';
import { observationOperation } from '../../engine/lifecycle/observations.ts';
import type { ResourceIdentity } from '../../engine/state/state.ts';
import { observeAndGrant, observePool } from '../../lib/lifecycle/grant.ts';
import { readResource } from '../../lib/github/resources.ts';
import type { Fault } from '../fake-github/server.ts';
import { seedIssue, transferIssue } from '../fake-github/routes-issues.ts';
import { seedPull } from '../fake-github/routes-pulls.ts';
import type { FakeRepository } from '../fake-github/state.ts';
import { countOps, createBench, PRINCIPAL, type Bench } from './harness.ts';
import { runFairway } from '../support/cli.ts';

let bench: Bench;
afterEach(async () => bench?.close());

const ISSUE_ID = '9007199254740995'; // above 2^53: a float parser would read ...996
const PR_ID = '9007199254740997';

function resource(repo: FakeRepository, kind: 'issue' | 'pull_request', number: number, id: string): JsonObject {
  return { kind, host: 'github.com', repository: `${repo.owner}/${repo.name}`, repository_id: String(repo.id), resource_id: id, number: String(number) };
}

/** A bench whose genesis admits `gated` (and `extra`) with edges on the fake's `acme/design`. */
async function gated(edges: (repo: FakeRepository) => SubmitNode['depends_on'], extra: (repo: FakeRepository) => SubmitNode[] = () => []): Promise<Bench> {
  return createBench({
    nodes: (fake) => {
      const repo = fake.state.createRepo('acme', 'design');
      return [{ node_key: 'gated', payload: { plan: 'after the gate' }, depends_on: edges(repo) }, ...extra(repo)];
    },
  });
}

async function grant(b: Bench, id: string, refresh = 128) {
  return observeAndGrant(b.publisher, b.api, { requestId: id, actor: b.dispatcher, pool: 'default', max_claims: 4, max_dispatches: 4, max_bytes: 49152, refresh }, b.now);
}

function design(b: Bench): FakeRepository {
  return b.fake.state.repo('acme', 'design')!;
}

describe('the resolver never turns a failed read into a condition', () => {
  it('401, 403, 404, rate limits, network failures and identity mismatches are unknown', async () => {
    bench = await gated((repo) => [{ kind: 'issue', condition: 'closed', resource: resource(repo, 'issue', 7, ISSUE_ID) }]);
    const repo = design(bench);
    seedIssue(bench.fake.state, repo, { number: 7, id: ISSUE_ID, state: 'closed', state_reason: 'completed' });
    const target = resource(repo, 'issue', 7, ISSUE_ID) as unknown as ResourceIdentity;
    const ISSUE = '/repos/{owner}/{repo}/issues/{issue_number}';
    const cases: Array<[Fault | null, string]> = [
      [{ method: 'GET', path: ISSUE, kind: 'status', status: 401, body: { message: 'Bad credentials', documentation_url: 'x' } }, 'unauthorized'],
      [{ method: 'GET', path: ISSUE, kind: 'status', status: 403, body: { message: 'Resource not accessible by integration', documentation_url: 'x' } }, 'forbidden'],
      [{ method: 'GET', path: ISSUE, kind: 'status', status: 404, body: { message: 'Not Found', documentation_url: 'x' } }, 'not_found'],
      [{ method: 'GET', path: ISSUE, kind: 'status', status: 410, body: { message: 'Gone', documentation_url: 'x' } }, 'not_found'],
      [{ method: 'GET', path: ISSUE, kind: 'status', status: 403, body: { message: 'API rate limit exceeded', documentation_url: 'x' }, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) } }, 'rate_limited'],
      [{ method: 'GET', path: ISSUE, kind: 'status', status: 502, body: { message: 'Bad Gateway', documentation_url: 'x' } }, 'unavailable'],
      [{ method: 'GET', path: ISSUE, kind: 'drop-before' }, 'network'],
      [{ method: 'GET', path: ISSUE, kind: 'status', status: 200, body: { id: 1 } }, 'response_invalid'],
      [null, 'ok'],
    ];
    for (const [fault, status] of cases) {
      if (fault !== null) bench.fake.inject(fault);
      const facts = await readResource(bench.api, target);
      expect(facts.read_status).toBe(status);
      const op = observationOperation({ gate: 'g', edge: { kind: 'issue', condition: 'closed', resource: target } }, facts, 1, 'initial');
      expect(op.state).toBe(status === 'ok' ? 'ready' : 'unknown');
    }
    expect((await readResource(bench.api, { ...target, resource_id: '1' })).read_status).toBe('identity_mismatch');
    expect((await readResource(bench.api, { ...target, host: 'ghe.example' })).read_status).toBe('host_mismatch');
    expect((await readResource(bench.api, { ...target, repository_id: '1' })).read_status).toBe('identity_mismatch');
    bench.fake.violations.splice(0); // the injected 200 with a wrong body is deliberately invalid
  });
});

describe('Issue and PR gates', () => {
  it('a completed Issue unblocks: fresh Observations precede the Claims in one dispatch_next commit (ids above 2^53 exact)', async () => {
    bench = await gated((repo) => [{ kind: 'issue', condition: 'completed', resource: resource(repo, 'issue', 7, ISSUE_ID) }]);
    seedIssue(bench.fake.state, design(bench), { number: 7, id: ISSUE_ID, state: 'closed', state_reason: 'completed' });
    const r = await grant(bench, 'g1');
    expect(r.outcome.status).toBe('committed');
    const p = await bench.replayValid();
    const commit = JSON.parse(p.commitText(p.tip!)!) as { request: { kind: string }; operations: Array<{ kind: string; observation_id?: string; observations?: string[] }> };
    expect(commit.request.kind).toBe('dispatch_next');
    expect(commit.operations.map((o) => o.kind)).toEqual(['Observation', 'Claim']);
    expect(commit.operations[1]!.observations).toEqual([commit.operations[0]!.observation_id]);
    expect(p.commitText(p.tip!)).toContain(`"resource_id":"${ISSUE_ID}"`);
  });

  it('an Issue closed as not planned, a PR closed unmerged, and a stale or errored observation never satisfy a gate', async () => {
    bench = await gated(
      (repo) => [{ kind: 'issue', condition: 'completed', resource: resource(repo, 'issue', 7, ISSUE_ID) }],
      (repo) => [
        { node_key: 'pr-gated', payload: {}, depends_on: [{ kind: 'pull_request', condition: 'merged', resource: resource(repo, 'pull_request', 8, PR_ID) }] },
        // Admitted with another resource id than GitHub now reports for #9: identity mismatch.
        { node_key: 'err-gated', payload: {}, depends_on: [{ kind: 'issue', condition: 'closed', resource: resource(repo, 'issue', 9, '901') }] },
      ],
    );
    const r0 = design(bench);
    seedIssue(bench.fake.state, r0, { number: 7, id: ISSUE_ID, state: 'closed', state_reason: 'not_planned' });
    seedPull(bench.fake.state, r0, { number: 8, id: PR_ID, issueId: '800', state: 'closed', merged: false });
    seedIssue(bench.fake.state, r0, { number: 9, id: '900', state: 'closed', state_reason: 'completed' });
    const r = await grant(bench, 'g1');
    expect(r.outcome.status).toBe('no_write');
    expect(r.observeCommit).not.toBeNull();
    const p = await bench.replayValid();
    const ops = (JSON.parse(p.commitText(r.observeCommit!)!) as { operations: Array<Record<string, unknown>> }).operations;
    const states = Object.fromEntries(ops.map((o) => [(o.resource as { number: string }).number, [o.state, o.read_status]]));
    expect(states['7']).toEqual(['failed', 'ok']);
    expect(states['8']).toEqual(['failed', 'ok']);
    expect(states['9']).toEqual(['unknown', 'identity_mismatch']);
    const at = bench.clock.t;
    for (const key of ['gated', 'pr-gated', 'err-gated']) {
      const e = eligibility(p.state, p.work(workId('g', key))!, at);
      expect(e.eligible).toBe(false);
    }
    expect(countOps(p, 'Claim')).toBe(0);
  });

  it('a ready observation goes stale after max_observation_age_ms; a failed refresh does not reuse it', async () => {
    bench = await gated((repo) => [{ kind: 'issue', condition: 'closed', resource: resource(repo, 'issue', 7, ISSUE_ID) }]);
    seedIssue(bench.fake.state, design(bench), { number: 7, id: ISSUE_ID, state: 'closed', state_reason: 'duplicate' });
    const observed = await observePool(bench.publisher, bench.api, { requestId: 'o1', actor: bench.dispatcher, pool: 'default' }, bench.now);
    expect(observed.refresh.operations[0]).toMatchObject({ state: 'ready', read_status: 'ok', resource_state: 'closed' });
    let p = await bench.projection();
    const gate = p.work(workId('g', 'gated'))!;
    expect(eligibility(p.state, gate, bench.clock.t + 60_000)).toMatchObject({ eligible: true });
    expect(eligibility(p.state, gate, bench.clock.t + 60_001)).toMatchObject({ eligible: false, reason: 'observation_stale' });
    bench.clock.t += 120_000;
    bench.fake.inject({ method: 'GET', path: '/repos/{owner}/{repo}', kind: 'status', status: 404, body: { message: 'Not Found', documentation_url: 'x' } });
    const r = await grant(bench, 'g1');
    expect(r.outcome.status).toBe('no_write');
    p = await bench.replayValid();
    expect(eligibility(p.state, p.work(workId('g', 'gated'))!, bench.clock.t)).toMatchObject({ eligible: false, reason: 'external_unavailable' });
    expect(countOps(p, 'Claim')).toBe(0);
  });

  it('a merged PR unblocks through the Pulls endpoint; the same number behind an Issue edge is a type mismatch', async () => {
    bench = await gated(
      (repo) => [{ kind: 'pull_request', condition: 'merged', resource: resource(repo, 'pull_request', 8, PR_ID) }],
      (repo) => [{ node_key: 'typed-wrong', payload: {}, depends_on: [{ kind: 'issue', condition: 'closed', resource: resource(repo, 'issue', 8, '800') }] }],
    );
    seedPull(bench.fake.state, design(bench), { number: 8, id: PR_ID, issueId: '800', merged: true });
    const r = await grant(bench, 'g1');
    expect(r.outcome.status).toBe('committed');
    const p = await bench.replayValid();
    const ops = (JSON.parse(p.commitText(p.tip!)!) as { operations: Array<Record<string, unknown>> }).operations;
    expect(ops.filter((o) => o.kind === 'Observation').map((o) => [o.condition, o.state, o.read_status])).toEqual([
      ['merged', 'ready', 'ok'], ['closed', 'unknown', 'type_mismatch'],
    ]);
    expect(ops.filter((o) => o.kind === 'Claim').map((o) => o.work_id)).toEqual([workId('g', 'gated')]);
  });

  it('reads are deduplicated per resource, unchanged results are not rewritten, and the refresh budget bounds reads', async () => {
    const issue = (repo: FakeRepository) => resource(repo, 'issue', 7, ISSUE_ID);
    bench = await gated((repo) => [{ kind: 'issue', condition: 'completed', resource: issue(repo) }], (repo) => [
      { node_key: 'also-completed', payload: {}, depends_on: [{ kind: 'issue', condition: 'completed', resource: issue(repo) }] },
      { node_key: 'closed-too', payload: {}, depends_on: [{ kind: 'issue', condition: 'closed', resource: issue(repo) }] },
    ]);
    seedIssue(bench.fake.state, design(bench), { number: 7, id: ISSUE_ID, state: 'open' });
    const first = await observePool(bench.publisher, bench.api, { requestId: 'o1', actor: bench.dispatcher, pool: 'default' }, bench.now);
    expect(first.refresh).toMatchObject({ candidates: 2, reads: 1 });
    expect(first.refresh.operations.map((o) => [o.condition, o.state])).toEqual([['completed', 'waiting'], ['closed', 'waiting']]);
    const issueReads = () => bench.fake.requests.filter((r) => r.template === '/repos/{owner}/{repo}/issues/{issue_number}').length;
    expect(issueReads()).toBe(1);
    bench.clock.t += 1000;
    const second = await observePool(bench.publisher, bench.api, { requestId: 'o2', actor: bench.dispatcher, pool: 'default' }, bench.now);
    expect(second.outcome).toBeNull();
    expect(second.refresh.skipped.map((s) => s.reason)).toEqual(['unchanged', 'unchanged']);
    const limited = await observePool(bench.publisher, bench.api, { requestId: 'o3', actor: bench.dispatcher, pool: 'default', refresh: 1 }, bench.now);
    expect(limited.refresh).toMatchObject({ budget: 1, reads: 1 });
    expect(limited.refresh.skipped.map((s) => s.reason)).toEqual(['unchanged', 'budget']);
    await bench.replayValid();
  });
});

describe('requests per refresh', () => {
  it('reads a repository once per refresh for all its gates, and still checks each resource against it', async () => {
    const ISSUE_B = '9007199254741001';
    bench = await gated((repo) => [{ kind: 'issue', condition: 'completed', resource: resource(repo, 'issue', 7, ISSUE_ID) }], (repo) => [
      { node_key: 'second-issue', payload: {}, depends_on: [{ kind: 'issue', condition: 'completed', resource: resource(repo, 'issue', 8, ISSUE_B) }] },
      { node_key: 'wrong-repository-id', payload: {}, depends_on: [{ kind: 'issue', condition: 'completed', resource: { ...resource(repo, 'issue', 8, ISSUE_B), repository_id: String(repo.id + 1) } }] },
    ]);
    seedIssue(bench.fake.state, design(bench), { number: 7, id: ISSUE_ID, state: 'closed', state_reason: 'completed' });
    seedIssue(bench.fake.state, design(bench), { number: 8, id: ISSUE_B, state: 'closed', state_reason: 'completed' });
    const from = bench.fake.requests.length;
    const report = await observePool(bench.publisher, bench.api, { requestId: 'o1', actor: bench.dispatcher, pool: 'default' }, bench.now);
    const seen = bench.fake.requests.slice(from).map((r) => r.template);
    expect(seen.filter((t) => t === '/repos/{owner}/{repo}')).toHaveLength(1);
    expect(seen.filter((t) => t === '/repos/{owner}/{repo}/issues/{issue_number}')).toHaveLength(2);
    expect(report.refresh.reads).toBe(3);
    // The shared read does not share the verdict: the resource naming another repository id is unknown.
    const byState = report.refresh.operations.map((o) => o.state).sort();
    expect(byState).toEqual(['ready', 'ready', 'unknown']);
    await bench.replayValid();
  });
});

describe('spec 7.16: identity is the typed resource, re-read exactly', () => {
  it('an Issue transferred to another repository, with the same number there, never satisfies its gate (unknown, identity_mismatch; explain: external_unavailable)', async () => {
    bench = await gated((repo) => [{ kind: 'issue', condition: 'completed', resource: resource(repo, 'issue', 7, ISSUE_ID) }]);
    const library = bench.fake.state.createRepo('acme', 'library');
    seedIssue(bench.fake.state, design(bench), { number: 7, id: ISSUE_ID, state: 'closed', state_reason: 'completed' });
    transferIssue(bench.fake.state, design(bench), 7, library);
    await grant(bench, 'g1');
    const p = await bench.replayValid();
    expect(countOps(p, 'Claim')).toBe(0);
    const observations = [...p.state.observations.values()];
    expect(observations).toHaveLength(1);
    expect(observations[0]).toMatchObject({ state: 'unknown', readStatus: 'identity_mismatch' });
    const gatedWork = p.work(workId('g', 'gated'))!;
    expect(eligibility(p.state, gatedWork, bench.now())).toMatchObject({ eligible: false, reason: 'external_unavailable' });
    // `fairway explain` (offline, on the queue branch) names the mismatch.
    let out = '';
    const code = await runFairway(['--json', '--repo', bench.dir, '--principal', PRINCIPAL, 'explain', '--pool', 'default', '--work-id', gatedWork.workId, '--as-of', String(bench.now())],
      { out: (t) => (out += t), err: () => undefined });
    expect(code).toBe(0);
    const explained = JSON.parse(out) as { reason: string; blocking_path: Array<{ kind: string; reason: string; read_status?: string }> };
    expect(explained.reason).toBe('external_unavailable');
    expect(explained.blocking_path.at(-1)).toMatchObject({ kind: 'issue', reason: 'external_unavailable', read_status: 'identity_mismatch' });
  });

  it('an Issue that is now a Pull Request, or deleted, never satisfies its gate (type_mismatch / not_found)', async () => {
    bench = await gated((repo) => [{ kind: 'issue', condition: 'closed', resource: resource(repo, 'issue', 7, ISSUE_ID) }]);
    const repo = design(bench);
    const target = resource(repo, 'issue', 7, ISSUE_ID) as unknown as ResourceIdentity;
    seedIssue(bench.fake.state, repo, { number: 7, id: ISSUE_ID, state: 'closed', state_reason: 'completed', pull: true });
    expect((await readResource(bench.api, target)).read_status).toBe('type_mismatch');
    seedIssue(bench.fake.state, bench.fake.state.createRepo('acme', 'library'), { number: 7, id: ISSUE_ID, state: 'closed', state_reason: 'completed' });
    transferIssue(bench.fake.state, repo, 7, bench.fake.state.repo('acme', 'library')!);
    expect((await readResource(bench.api, target)).read_status).not.toBe('ok');
  });
});
