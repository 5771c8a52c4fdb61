/**
 * The backing-Issue test bench: a real temporary Git repository holding the queue branch and
 * the projection journal branch (LocalGitStore + the checked Publisher), the fake GitHub with
 * the Issues, labels and comments routes (every response validated against @octokit/openapi),
 * and lifecycle steps published through the same Publisher the projector uses, so the
 * projector's own IssueLink/IssueComment commits and the queue's lifecycle share one ledger.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import { replayLedger, type Projection } from '../../engine/replay/index.ts';
import { policyRequest } from '../../engine/requests/admin.ts';
import { cancelWork, deliveryFailure, dispatchBound, dispatchStarted, release, result } from '../../engine/requests/lifecycle.ts';
import { bootstrapRequest, dispatchNextRequest, finishRequest, submitRequest, type BuiltRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import type { Actor } from '../../engine/schema/index.ts';
import type { ReplayState } from '../../engine/state/state.ts';
import { IssuesClient } from '../../lib/issues/github.ts';
import { JournalStore } from '../../lib/issues/journal-store.ts';
import { syncIssues, type SyncOptions, type SyncReport } from '../../lib/issues/projector.ts';
import { issueTemplates } from '../../lib/issues/templates.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { admin, dispatcher, policyOf, producer, reconciler, REPOSITORY } from '../acceptance/queue.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { findIssue, issueRoutes, repoIssues } from '../fake-github/routes-issues.ts';
import { labelRoutes } from '../fake-github/routes-labels.ts';
import { seedCommit, type FakeRepository } from '../fake-github/state.ts';
import { GitHubGraphqlStore } from '../../lib/store/github-graphql.ts';
import type { LedgerStore } from '../../lib/store/types.ts';
import { git } from '../support/fixture-repo.ts';

export { REPOSITORY };
export const PROJECTOR_REF = 'a'.repeat(40);
const T0 = 1_800_000_000_000;

export interface IssueBench {
  fake: FakeGitHub;
  repo: FakeRepository;
  dir: string;
  publisher: Publisher;
  clock: { t: number };
  /** A second repository of the fake (`owner/other`), for cross-repository projection. */
  other: FakeRepository;
  /**
   * A fresh projector (its own publisher, journal store and client), as a separate hook would
   * be. `actor` publishes the bindings and is the projector identity of rules (default: the
   * reconciler, which no rule names); `projectorRef` is its revision (default PROJECTOR_REF).
   */
  projector(options?: { owner?: string; prefix?: string; runUrl?: string | null; actor?: Actor; projectorRef?: string; client?: Partial<ConstructorParameters<typeof IssuesClient>[0]> }): Projector;
  /** Installs `policy` as a new epoch (the queue must be quiescent). */
  policy(epoch: string, policy: JsonObject): Promise<void>;
  submit(nodes: SubmitNode[]): Promise<void>;
  grant(): Promise<{ dispatchId: string; claimId: string; workId: string }>;
  bind(dispatchId: string, runId: string): Promise<void>;
  finish(claimId: string, outcome: 'completed' | 'cancelled'): Promise<void>;
  result(workId: string, outputs: Array<{ type: string }>): Promise<void>;
  deliveryFailure(workId: string): Promise<void>;
  /** Releases the native reservation of `dispatchId` (its run concluded). */
  release(dispatchId: string): Promise<void>;
  cancel(workId: string): Promise<void>;
  projection(): Promise<Projection>;
  /** Cold replay of the queue branch's bytes (the projector's bindings must replay). */
  replayValid(): Promise<Projection>;
  close(): Promise<void>;
}

export interface Projector {
  sync(options?: SyncOptions): Promise<SyncReport>;
  client: IssuesClient;
  journal: JournalStore;
}

/** `graphql`: the ledger and journal branches live in the fake GitHub (GitHubGraphqlStore), so their reads are counted too. */
/** `policy`: the genesis Policy (a function of the second repository, for grants naming its ids). */
export async function issueBench(nodes: SubmitNode[], options: { store?: 'local' | 'graphql'; policy?: JsonObject | ((other: FakeRepository) => JsonObject) } = {}): Promise<IssueBench> {
  const fake = await createFakeGitHub({ routes: [...labelRoutes, ...issueRoutes] });
  const [owner, name] = REPOSITORY.split('/') as [string, string];
  const repo = fake.state.createRepo(owner, name);
  seedCommit(repo, 'main', { 'README.md': 'project\n' });
  const other = fake.state.createRepo('owner', 'other');
  const dir = mkdtempSync(join(tmpdir(), 'fairway-issues-'));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'init');
  const storeOf = (branch?: string): LedgerStore => (options.store === 'graphql'
    ? new GitHubGraphqlStore({ owner, repo: name, token: 'fake-token', baseUrl: fake.url, writeIntervalMs: 0, retryBaseMs: 5, lag: { baseMs: 5 }, ...(branch === undefined ? {} : { branch }) })
    : new LocalGitStore({ repo: dir, ...(branch === undefined ? {} : { branch }) }));
  const publisher = new Publisher(storeOf());
  const clock = { t: T0 };
  const now = () => (clock.t += 1000);
  let seq = 0;
  let runs = 7000;

  async function step(actor: Actor, build: (state: ReplayState, at: number) => BuiltRequest): Promise<void> {
    const out = await publisher.publish({ requestId: `step-${++seq}`, actor, now, prepare: (p, ids) => build(p.state, ids.at) });
    expect(out.status).toBe('committed');
  }

  const boot = await publisher.publish({
    requestId: 'bootstrap', actor: producer, now, prepare: () => { throw new Error('unreachable'); },
    bootstrap: (ids) => bootstrapRequest((typeof options.policy === 'function' ? options.policy(other) : options.policy) ?? policyOf(), 'epoch-1', nodes, { graphId: 'g', at: ids.at }),
  });
  expect(boot.status).toBe('committed');

  const bench: IssueBench = {
    fake, repo, other, dir, publisher, clock,
    projector(options = {}) {
      const p = new Publisher(storeOf());
      const journal = new JournalStore(storeOf('work-queue-issues'));
      const client = new IssuesClient({ token: 'fake-token', baseUrl: fake.url, writeIntervalMs: 0, retryBaseMs: 5, retries: 0, timeouts: { readMs: 15000, writeMs: 15000 }, ...options.client });
      const deps = {
        publisher: p, journal, client, actor: options.actor ?? reconciler, prefix: options.prefix ?? 'work', templates: issueTemplates(),
        runUrl: options.runUrl === undefined ? 'https://github.com/owner/repo/actions/runs/424242' : options.runUrl,
        owner: options.owner ?? 'run-424242-1', projectorRef: options.projectorRef ?? PROJECTOR_REF, now,
      };
      return { client, journal, sync: (o) => syncIssues(deps, o) };
    },
    submit: (more) => step(producer, (s, at) => submitOf(s, more, at)),
    policy: (epoch, policy) => step(admin, () => policyRequest(epoch, policy)),
    async grant() {
      let plan: { claims: Array<{ dispatch_id: string; claim_id: string; work_id: string }> } | undefined;
      await step(dispatcher, (s, at) => {
        const built = dispatchNextRequest(s, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, { requestId: `step-${seq}`, commitId: '' }, at);
        plan = built.plan as never;
        return built;
      });
      const c = plan!.claims[0]!;
      return { dispatchId: c.dispatch_id, claimId: c.claim_id, workId: c.work_id };
    },
    async bind(dispatchId, runId) {
      await step(dispatcher, () => dispatchStarted(dispatchId, dispatcher as unknown as JsonObject));
      await step(reconciler, (s, at) => dispatchBound(s, dispatchId, runId, at));
    },
    async finish(claimId, outcome) {
      const s = (await bench.projection()).state;
      const claim = s.claims.get(claimId)!;
      const runId = (s.dispatches.get(claim.dispatchId)!.run as { run_id: string } | null)?.run_id ?? String(++runs);
      if (s.dispatches.get(claim.dispatchId)!.run === null) await bench.bind(claim.dispatchId, runId);
      const worker: Actor = { role: 'worker', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/worker.lock.yml', run_id: runId, run_attempt: 1, dispatch_id: claim.dispatchId, claim_handle: claim.handle };
      await step(worker, (st, at) => finishRequest(st, { dispatch_id: claim.dispatchId, claim_handle: claim.handle, outcome }, at));
    },
    result: (workId, outputs) => step(reconciler, (s, at) => result(s, workId, { schema: 'fairway.result/1', outputs: outputs as unknown as JsonObject[] }, at, 'receipt-1')),
    deliveryFailure: (workId) => step(reconciler, (s, at) => deliveryFailure(s, workId, at, 5)),
    release: (dispatchId) => step(reconciler, (s, at) => release(s, dispatchId, at)),
    cancel: (workId) => step(admin, () => cancelWork([workId], 'operator_cancelled')),
    async projection() {
      const { projection } = await publisher.cache.load();
      return projection!;
    },
    async replayValid() {
      const snap = await storeOf().read();
      return replayLedger(snap.bytes!);
    },
    async close() {
      expect(fake.violations).toEqual([]);
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return bench;
}

function submitOf(state: ReplayState, nodes: SubmitNode[], at: number): BuiltRequest {
  return submitRequest(state, nodes, { graphId: 'g2', at });
}

/** Labels of Issue `number` in the fake. */
export function labelsOf(bench: IssueBench, number: string | number): string[] {
  return [...(findIssueOf(bench, Number(number))?.labels ?? [])].sort();
}

export function findIssueOf(bench: IssueBench, number: number) {
  return findIssue(bench.fake.state, bench.repo, number);
}
export function issuesOf(bench: IssueBench) {
  return repoIssues(bench.fake.state, bench.repo);
}
