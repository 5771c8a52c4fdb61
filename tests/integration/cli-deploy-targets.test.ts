/**
 * `fairway deploy --from-config` over several pools and profiles on a real local Git
 * repository: each (pool, profile) Deployment gets its own request id, even when names
 * contain `-` (pool `a-b`/profile `c` versus pool `a`/profile `b-c`), and a caller's
 * `--request-id` too long to derive those ids is a usage error before anything is written.
 * A deploy whose revision was read before a concurrent deploy moved the route loses the CAS
 * (spec 7.10: "A mismatch fails CAS; it cannot retarget a concurrent winner").
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { GlobalOptions } from '../../cli/context.ts';
import { writeTarget } from '../../cli/source.ts';
import { routeExpectation } from '../../engine/lifecycle/deploy.ts';
import { isProtocolError } from '../../engine/errors.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { workerRoute } from '../../engine/replay/ops/deployment.ts';
import { deployWorker } from '../../lib/lifecycle/deploy.ts';
import { actorOf } from '../../lib/publisher/actor.ts';
import { commitOnMain, fixtureRepo, git, inputFiles, queueTip, repoCli } from '../support/fixture-repo.ts';
import { WORKER_WORKFLOW } from '../support/worker-workflow.ts';

let repo: string;
let file: (name: string, value: unknown) => string;

function queueState() {
  return replayLedger(new Uint8Array(Buffer.from(`${git(repo, 'show', 'work-queue:work-queue.jsonl')}\n`))).state;
}

beforeEach(async () => {
  repo = fixtureRepo('fairway-deploy-targets-');
  file = inputFiles('fairway-deploy-targets-files-');
  copyFileSync(join(repo, WORKER_WORKFLOW), join(repo, '.github/workflows/second.lock.yml'));
  commitOnMain(repo, {
    '.github/work-queue-workers.json': JSON.stringify({ workers: { c: { workflow: WORKER_WORKFLOW }, 'b-c': { workflow: '.github/workflows/second.lock.yml' } }, default: 'c' }),
    '.github/workflows/aw.json': JSON.stringify({ work_queue: { pools: { a: {}, 'a-b': {} } } }),
  });
  expect((await repoCli(repo, '--request-id', 'seed', 'submit-work', '--file', file('p.json', { a: 1 }), '--pool', 'a')).code).toBe(0);
});

describe('fairway deploy across pools and profiles', () => {
  it('gives every (pool, profile) its own request id, even when joining the names with - would collide', async () => {
    const v1 = commitOnMain(repo, { 'src/worker.ts': 'v1\n' });
    const r = await repoCli(repo, '--request-id', 'dep', 'deploy', '--from-config');
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    const reports = r.json.deployments as Array<{ pool: string; worker_profile: string; status: string; to: string; request_id: string }>;
    expect(reports.map((d) => [d.pool, d.worker_profile, d.status, d.to])).toEqual([
      ['a', 'b-c', 'deployed', v1], ['a', 'c', 'deployed', v1], ['a-b', 'b-c', 'deployed', v1], ['a-b', 'c', 'deployed', v1],
      ['default', 'b-c', 'deployed', v1], ['default', 'c', 'deployed', v1],
    ]);
    expect(new Set(reports.map((d) => d.request_id)).size).toBe(6);
    for (const d of reports) expect(d.request_id.startsWith('dep-')).toBe(true);
    // The same --request-id again replays each profile's own request.
    const again = await repoCli(repo, '--request-id', 'dep', 'deploy', '--from-config');
    expect(again.code).toBe(0);
    expect(again.json.deployments.map((d: { request_id: string }) => d.request_id)).toEqual(reports.map((d) => d.request_id));
    expect(queueState().deployments.size).toBe(6);
  });

  it('refuses a --request-id too long to derive the per-profile ids (option_invalid, exit 2), writing nothing', async () => {
    commitOnMain(repo, { 'src/worker.ts': 'v1\n' });
    const tip = queueTip(repo);
    const r = await repoCli(repo, '--request-id', 'x'.repeat(250), 'deploy', '--from-config');
    expect(r).toMatchObject({ code: 2, json: { ok: false, error: { code: 'option_invalid' } } });
    expect(queueTip(repo)).toBe(tip);
    expect((await repoCli(repo, '--request-id', 'x'.repeat(239), 'deploy', '--from-config')).code).toBe(0);
  });
});

describe('a deploy that read its revision before a concurrent deploy moved the route', () => {
  it('is deployment_conflict and leaves the winner current, instead of rolling the route back to its older revision', async () => {
    const v1 = commitOnMain(repo, { 'src/worker.ts': 'v1\n' });
    // The slow deployer reads the route (still installed), then the default branch (v1) ...
    const { publisher } = writeTarget({ dir: repo, json: true } as GlobalOptions);
    const observed = routeExpectation((await publisher.cache.load()).projection!, 'a', 'c');
    // ... meanwhile a faster deploy of v2 wins.
    const v2 = commitOnMain(repo, { 'src/worker.ts': 'v2\n' });
    const won = await repoCli(repo, '--request-id', 'fast', 'deploy', '--from-config', '--pool', 'a', '--worker-profile', 'c');
    expect(won.json.deployments[0]).toMatchObject({ status: 'deployed', from: observed.ref, to: v2 });
    const tip = queueTip(repo);
    const stale = deployWorker(publisher, actorOf('administrator', '1'), { requestId: 'slow', pool: 'a', workerProfile: 'c', revision: { ref: v1, branch: 'main', available: true }, expected: observed });
    await expect(stale).rejects.toSatisfy((e) => isProtocolError(e) && e.code === 'deployment_conflict');
    expect(queueTip(repo)).toBe(tip);
    expect(workerRoute(queueState(), 'a', 'c')!.currentRef).toBe(v2);
  });
});
