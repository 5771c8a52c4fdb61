/**
 * GitHub requests per gate-observation refresh (issue 11 §5, spec 7.16/7.17): N Works, each
 * gated on its own Issue or pull request in another repository on the pool's allowlist, read
 * by the real observer (`observePool` → `refreshGates` → `readResource`) against the
 * schema-validated fake GitHub (tests/fake-github), the queue on a real local Git repository.
 * Three refreshes per N: the first (every gate new), an unchanged one (GitHub reports the same
 * facts: nothing is written), and a changed one (every resource changed state). Counts every
 * HTTP request the fake GitHub received during each refresh.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '../engine/json.ts';
import { replayLedger } from '../engine/replay/index.ts';
import { bootstrapRequest, type SubmitNode } from '../engine/requests/operations.ts';
import type { Actor } from '../engine/schema/index.ts';
import { defaultWorkQueueSettings, policyFromSettings } from '../lib/config/aw.ts';
import { GitHubApi } from '../lib/github/api.ts';
import { observePool } from '../lib/lifecycle/grant.ts';
import { Publisher } from '../lib/publisher/publisher.ts';
import { LocalGitStore } from '../lib/store/local-git.ts';
import { createFakeGitHub } from '../tests/fake-github/server.ts';
import { findIssue, issueRoutes, seedIssue } from '../tests/fake-github/routes-issues.ts';
import { pullRoutes, seedPull } from '../tests/fake-github/routes-pulls.ts';
import { FAKE_USER, seedCommit } from '../tests/fake-github/state.ts';

export interface ObservationRequestsRow {
  gates: number;
  refresh: 'first' | 'unchanged' | 'changed';
  requests: number;
  reads: number;
  written: number;
  unchanged: number;
  violations: number;
}

const REPOSITORY = 'acme/queue';
const PRINCIPAL = String(FAKE_USER.id);

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-C', dir, ...args], { env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@e', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@e' } });
}

async function measure(gates: number): Promise<ObservationRequestsRow[]> {
  const fake = await createFakeGitHub({ routes: [...issueRoutes, ...pullRoutes] });
  const dir = mkdtempSync(join(tmpdir(), 'fairway-bench-observe-'));
  try {
    const queue = fake.state.createRepo('acme', 'queue');
    const ref = seedCommit(queue, 'main', { 'README.md': 'queue\n' });
    const design = fake.state.createRepo('acme', 'design');
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'README.md'), 'queue\n');
    git(dir, 'add', 'README.md');
    git(dir, 'commit', '-q', '-m', 'init');
    const publisher = new Publisher(new LocalGitStore({ repo: dir }));
    const api = new GitHubApi({ token: 'bench-token', baseUrl: fake.url, retries: 0 });
    const clock = { t: 1_760_000_000_000 };
    const now = (): number => clock.t;

    // Half Issues (condition completed), half pull requests (condition merged), all open: waiting.
    const nodes: SubmitNode[] = [];
    for (let i = 0; i < gates; i++) {
      const number = i + 1;
      const id = String(900_000 + number);
      const pull = i % 2 === 1;
      if (pull) seedPull(fake.state, design, { number, id, issueId: String(800_000 + number), state: 'open', merged: false });
      else seedIssue(fake.state, design, { number, id, state: 'open' });
      const resource = { kind: pull ? 'pull_request' : 'issue', host: 'github.com', repository: 'acme/design', repository_id: String(design.id), resource_id: id, number: String(number) };
      nodes.push({ node_key: `gated-${i}`, payload: { plan: `after ${resource.kind} #${number}` }, depends_on: [{ kind: resource.kind as 'issue', condition: pull ? 'merged' : 'completed', resource }] as unknown as SubmitNode['depends_on'] });
    }
    const policy = policyFromSettings(defaultWorkQueueSettings(), { repository: REPOSITORY, principal: PRINCIPAL, profile: { ref } });
    policy.pools = { ...(policy.pools as JsonObject) };
    (policy.pools as Record<string, JsonObject>).default!.allowed_repositories = [REPOSITORY, 'acme/design'];
    const producer: Actor = { role: 'producer', principal: PRINCIPAL, repository: REPOSITORY };
    const dispatcher: Actor = { role: 'dispatcher', principal: PRINCIPAL, repository: REPOSITORY, workflow: '.github/workflows/dispatcher.yml', run_id: '4001', run_attempt: 1 };
    await publisher.publish({
      requestId: 'seed', actor: producer, now,
      prepare: () => { throw new Error('the seed bootstraps'); },
      bootstrap: (ids) => bootstrapRequest(policy, 'epoch-1', nodes, { graphId: 'g', at: ids.at }),
    });

    const rows: ObservationRequestsRow[] = [];
    const refresh = async (label: ObservationRequestsRow['refresh']): Promise<void> => {
      clock.t += 1000;
      const from = fake.requests.length;
      const bad = fake.violations.length;
      const { refresh: report, outcome } = await observePool(publisher, api, { requestId: `observe-${label}`, actor: dispatcher, pool: 'default' }, now);
      if (outcome !== null && outcome.status !== 'committed') throw new Error(`observe ${label} with ${gates} gates: ${outcome.status}`);
      if (report.candidates !== gates) throw new Error(`observe ${label}: ${report.candidates} candidate gates, expected ${gates}`);
      rows.push({
        gates, refresh: label, requests: fake.requests.length - from, reads: report.reads, written: report.operations.length,
        unchanged: report.skipped.filter((s) => s.reason === 'unchanged').length, violations: fake.violations.length - bad,
      });
    };
    await refresh('first');
    await refresh('unchanged');
    // Every resource changes: Issues close as not planned, pull requests close unmerged.
    for (let i = 0; i < gates; i++) {
      const number = i + 1;
      if (i % 2 === 1) seedPull(fake.state, design, { number, id: String(900_000 + number), issueId: String(800_000 + number), state: 'closed', merged: false });
      else Object.assign(findIssue(fake.state, design, number)!, { state: 'closed', state_reason: 'not_planned', updatedAt: new Date(clock.t).toISOString() });
    }
    await refresh('changed');
    // The ledger the refreshes wrote replays.
    const { bytes } = await new LocalGitStore({ repo: dir }).read();
    replayLedger(bytes!);
    return rows;
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runObservationRequestsBench(sizes: readonly number[] = [1, 10, 25]): Promise<ObservationRequestsRow[]> {
  const rows: ObservationRequestsRow[] = [];
  for (const n of sizes) rows.push(...(await measure(n)));
  return rows;
}

if (process.argv[1] !== undefined && import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runObservationRequestsBench(), null, 1));
}
