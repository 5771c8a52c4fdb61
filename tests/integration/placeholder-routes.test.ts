/**
 * No path installs a placeholder worker route (issue 16 §3, spec 7.1 "the runtime MUST
 * validate immutable worker routes before queue publication"). The v3 schema and the
 * reference replayer accept an all-zero `ref` (the reference fixtures use one), so this is a
 * writer rule: the checked publisher refuses any Policy or Deployment that would install one
 * (`worker_route_unavailable`), whichever surface built it, and writes nothing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { deploymentPlan } from '../../engine/lifecycle/deploy.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { runFairway } from '../support/cli.ts';
import { fixtureRepo, git } from '../support/fixture-repo.ts';

const ZERO = '0'.repeat(40);
let repo: string;

async function cli(...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await runFairway(['--repo', repo, '--json', '--principal', '4242', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

const tip = () => git(repo, 'rev-parse', 'work-queue');

beforeEach(async () => {
  repo = fixtureRepo('fairway-placeholder-');
  const payload = join(repo, '..', `${repo.split('/').pop()}-p.json`);
  writeFileSync(payload, '{"task":"x"}');
  const s = await cli('--request-id', 's', 'submit-work', '--file', payload);
  expect(s.code).toBe(0);
  expect((await cli('--request-id', 'c', 'cancel-work', '--work-id', s.json.work_ids[0], '--reason', 'operator_cancelled')).code).toBe(0);
});

describe('the publisher refuses placeholder worker routes', () => {
  it('policy --file with an all-zero profile ref is worker_route_unavailable on a drained queue and writes nothing', async () => {
    const { projection } = await new Publisher(new LocalGitStore({ repo })).cache.load();
    const policy = structuredClone(projection!.state.policy!.policy) as any;
    expect(policy.pools.default.profiles.default.ref).toBe(git(repo, 'rev-parse', 'main'));
    policy.pools.default.profiles.default.ref = ZERO;
    const file = join(repo, '..', `${repo.split('/').pop()}-policy.json`);
    writeFileSync(file, JSON.stringify(policy));
    const before = tip();
    const r = await cli('--request-id', 'p', 'policy', '--file', file, '--epoch', 'epoch-2');
    expect(r).toMatchObject({ code: 3, json: { ok: false, error: { code: 'worker_route_unavailable' } } });
    expect(tip()).toBe(before);
    // The same Policy with a real revision is accepted (the refusal is about the ref alone).
    policy.pools.default.profiles.default.ref = git(repo, 'rev-parse', 'main');
    writeFileSync(file, JSON.stringify(policy));
    expect((await cli('--request-id', 'p2', 'policy', '--file', file, '--epoch', 'epoch-2')).code).toBe(0);
  });

  it('a Deployment to the all-zero ref is worker_route_unavailable and writes nothing', async () => {
    const publisher = new Publisher(new LocalGitStore({ repo }));
    const before = tip();
    const admin = { role: 'administrator' as const, principal: '4242', repository: (await publisher.cache.load()).projection!.state.repository! };
    await expect(publisher.publish({
      requestId: 'deploy-zero',
      actor: admin,
      prepare: (projection) => {
        const plan = deploymentPlan(projection.state, { pool: 'default', workerProfile: 'default', ref: ZERO, available: true, reason: 'worker_deployed' });
        if (!plan.changed) throw new Error('expected a change');
        return plan.request;
      },
    })).rejects.toMatchObject({ code: 'worker_route_unavailable' });
    expect(tip()).toBe(before);
  });
});
