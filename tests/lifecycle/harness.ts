/**
 * The lifecycle test bench: a real temporary Git repository holding the queue branch
 * (LocalGitStore + the checked Publisher), and the local GitHub stand-in with Issues,
 * Pulls and Actions routes whose every response is validated against @octokit/openapi.
 * The worker workflow `.github/workflows/worker.lock.yml` is registered in the fake
 * `acme/queue` repository; its run name carries `[<dispatch_id>]` like the compiled
 * worker's. Time is a controllable clock passed to every publication.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import { titleToken } from '../../engine/lifecycle/run-identity.ts';
import { replayLedger, type Projection } from '../../engine/replay/index.ts';
import { bootstrapRequest, dispatchNextRequest, submitRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { defaultWorkQueueSettings, policyFromSettings, type WorkQueueSettings } from '../../lib/config/aw.ts';
import { GitHubApi } from '../../lib/github/api.ts';
import type { ActionsRun } from '../../lib/github/context.ts';
import type { DispatchPostOptions } from '../../lib/github/dispatch-post.ts';
import { activateWorker } from '../../lib/lifecycle/activation.ts';
import { finishClaim } from '../../lib/lifecycle/finish.ts';
import { launchGroup, type LaunchDeps } from '../../lib/lifecycle/launcher.ts';
import type { ReconcileDeps } from '../../lib/lifecycle/reconciler.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { actionRoutes, findRun, registerWorkflow, type FakeWorkflow } from '../fake-github/routes-actions.ts';
import { issueRoutes } from '../fake-github/routes-issues.ts';
import { pullRoutes } from '../fake-github/routes-pulls.ts';
import { FAKE_USER, seedCommit, type FakeRepository } from '../fake-github/state.ts';
import { workerWorkflowYaml } from '../support/worker-workflow.ts';

export const REPOSITORY = 'acme/queue';
export const WORKFLOW = '.github/workflows/worker.lock.yml';
export const PRINCIPAL = String(FAKE_USER.id);
export const TOKEN = 'fake-token';
export const T0 = 1_760_000_000_000;

export interface Bench {
  fake: FakeGitHub;
  repo: FakeRepository;
  workflow: FakeWorkflow;
  /** The worker revision: the fake's `main` head, the profile's immutable ref. */
  ref: string;
  dir: string;
  store: LocalGitStore;
  publisher: Publisher;
  api: GitHubApi;
  post: DispatchPostOptions;
  clock: { t: number };
  now: () => number;
  dispatcher: Actor;
  reconciler: Actor;
  admin: Actor;
  launchDeps(extra?: Partial<LaunchDeps>): LaunchDeps;
  reconcileDeps(extra?: Partial<ReconcileDeps>): ReconcileDeps;
  /** Admits more Work (producer). */
  submit(requestId: string, nodes: SubmitNode[]): Promise<string[]>;
  /** One dispatch_next through the publisher (by `actor`, default `dispatcher`); returns the granted dispatch ids. */
  grant(requestId: string, maxClaims?: number, maxDispatches?: number, actor?: Actor): Promise<string[]>;
  projection(): Promise<Projection>;
  /** Cold replay of the branch's bytes: the ledger must stay valid after every scenario. */
  replayValid(): Promise<Projection>;
  /** The worker's own job context for run `runId`. */
  jobContext(runId: string, attempt?: number): ActionsRun;
  close(): Promise<void>;
}

export interface BenchOptions {
  maxClaims?: number;
  /** The genesis Work, or a function of the fake (to reference its repositories' ids). */
  nodes?: SubmitNode[] | ((fake: FakeGitHub) => SubmitNode[]);
  retry?: { max_attempts: number; backoff_seconds: number };
  /** Edits the aw.json `work_queue` settings the genesis Policy is resolved from (weights, per-account limits). */
  settings?: (settings: WorkQueueSettings) => void;
}

function git(repo: string, ...args: string[]): void {
  execFileSync('git', ['-C', repo, ...args], { env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } });
}

export function nodes(...keys: string[]): SubmitNode[] {
  return keys.map((k) => ({ node_key: k, payload: { plan: `task ${k}` } }));
}

export async function createBench(options: BenchOptions = {}): Promise<Bench> {
  const fake = await createFakeGitHub({ routes: [...issueRoutes, ...pullRoutes, ...actionRoutes] });
  const repo = fake.state.createRepo('acme', 'queue');
  const ref = seedCommit(repo, 'main', { [WORKFLOW]: workerWorkflowYaml(), 'README.md': 'queue\n' });
  const workflow = registerWorkflow(fake.state, repo, {
    path: WORKFLOW, name: 'worker', inputs: ['work_queue_assignment'],
    runName: (inputs) => `worker ${titleToken(String((JSON.parse(String(inputs.work_queue_assignment)) as { dispatch_id: string }).dispatch_id))}`,
  });

  const dir = mkdtempSync(join(tmpdir(), 'fairway-lifecycle-'));
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), 'queue\n');
  git(dir, 'add', 'README.md');
  git(dir, 'commit', '-q', '-m', 'init');
  const store = new LocalGitStore({ repo: dir });
  const publisher = new Publisher(store);
  const clock = { t: T0 };
  const now = () => clock.t;
  const actor = (role: Actor['role']): Actor => ({ role, principal: PRINCIPAL, repository: REPOSITORY });
  // The dispatcher's own Actions run: a start marker selects it as the one sender (spec 7.8).
  const dispatcher: Actor = { ...actor('dispatcher'), workflow: '.github/workflows/dispatcher.yml', run_id: '4001', run_attempt: 1 };
  const reconciler = actor('reconciler');
  const admin = actor('administrator');
  const api = new GitHubApi({ token: TOKEN, baseUrl: fake.url, retries: 0 });
  const post: DispatchPostOptions = { token: TOKEN, baseUrl: fake.url, timeoutMs: 5000 };

  const settings = defaultWorkQueueSettings();
  if (options.retry !== undefined) {
    settings.retry = options.retry;
    settings.pools.default!.retry = options.retry;
  }
  options.settings?.(settings);
  const policy = policyFromSettings(settings, { repository: REPOSITORY, principal: PRINCIPAL, profile: { ref, max_claims: options.maxClaims ?? 1 } });
  policy.pools = { ...(policy.pools as JsonObject) };
  ((policy.pools as Record<string, JsonObject>).default!).allowed_repositories = [REPOSITORY, 'acme/design', 'acme/library'];
  await publisher.publish({
    requestId: 'seed',
    actor: actor('producer'),
    prepare: () => { throw new Error('the seed bootstraps'); },
    bootstrap: (ids) => bootstrapRequest(policy, 'epoch-1', typeof options.nodes === 'function' ? options.nodes(fake) : options.nodes ?? nodes('a'), { graphId: 'g', at: ids.at }),
    now,
  });

  const bench: Bench = {
    fake, repo, workflow, ref, dir, store, publisher, api, post, clock, now, dispatcher, reconciler, admin,
    launchDeps: (extra = {}) => ({ publisher, api, post, sender: dispatcher, reconciler, ref: 'main', now, ...extra }),
    reconcileDeps: (extra = {}) => ({ publisher, api, reconciler, now, intervalMs: 0, sleep: async () => undefined, ...extra }),
    async submit(requestId, more) {
      const outcome = await publisher.publish({ requestId, actor: actor('producer'), prepare: (p, ids) => submitRequest(p.state, more, { graphId: 'g', at: ids.at }), now });
      return outcome.projection.request(requestId)!.workIds;
    },
    async grant(requestId, maxClaims = 1, maxDispatches = 1, by = dispatcher) {
      const input = { pool: 'default', max_claims: maxClaims, max_dispatches: maxDispatches, max_bytes: 49152 };
      const outcome = await publisher.publish({ requestId, actor: by, prepare: (p, ids) => dispatchNextRequest(p.state, input, ids, ids.at), now });
      const claims = outcome.projection.request(requestId)!.claimIds;
      return [...new Set(claims.map((c) => outcome.projection.claim(c)!.dispatchId))];
    },
    async projection() {
      const { projection } = await publisher.cache.load();
      return projection!;
    },
    async replayValid() {
      const { bytes } = await store.read();
      return replayLedger(bytes!);
    },
    jobContext: (runId, attempt = 1) => ({ repository: REPOSITORY, runId, runAttempt: attempt, workflow: WORKFLOW }),
    async close() {
      expect(fake.violations).toEqual([]);
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return bench;
}

/** Counts operations of `kind` for `dispatchId` (or all) in the validated ledger. */
export function countOps(projection: Projection, kind: string, dispatchId?: string): number {
  let n = 0;
  for (const c of projection.state.commits) {
    const ops = (JSON.parse(projection.commitText(c.id)!) as { operations: JsonObject[] }).operations;
    for (const op of ops) if (op.kind === kind && (dispatchId === undefined || op.dispatch_id === dispatchId)) n += 1;
  }
  return n;
}

/** POSTs the dispatch endpoint received (the one-POST rule is asserted on this). */
export function dispatchPosts(fake: FakeGitHub): number {
  return fake.requests.filter((r) => r.method === 'POST' && r.template === '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches').length;
}

/** Launches group `d`, lets its worker activate from its own run, and returns the run id. */
export async function launchAndActivate(b: Bench, d: string): Promise<string> {
  const report = await launchGroup(b.launchDeps(), d);
  if (report.run_id === null) throw new Error(`launch of ${d} did not return a run: ${report.outcome}`);
  const assignment = JSON.parse(String(findRun(b.fake.state, report.run_id)!.inputs.work_queue_assignment)) as unknown;
  await activateWorker({ publisher: b.publisher, api: b.api, run: b.jobContext(report.run_id), assignment, now: b.now });
  return report.run_id;
}

/** One member's finish from the worker's own run. */
export async function finish(b: Bench, d: string, handle: string, outcome: 'completed' | 'cancelled', runId: string) {
  return finishClaim(b.publisher, b.api, b.jobContext(runId), { dispatch_id: d, claim_handle: handle, outcome }, b.now);
}

/** The trusted safe-output step's receipts for one Claim. */
export function receipts(d: string, claimId: string, runId: string, outputs: Array<{ type: string; status: 'succeeded' | 'failed' | 'unknown'; ref?: string }> = [], complete = true): JsonObject {
  return { schema: 'fairway.delivery/1', dispatch_id: d, claim_id: claimId, run_id: runId, complete, outputs } as unknown as JsonObject;
}

/** Claim id of member `handle` of group `d`. */
export function claimOf(p: Projection, d: string, handle: string): string {
  return p.dispatch(d)!.claimIds.find((id) => p.claim(id)!.handle === handle)!;
}
