/**
 * `fairway launch --ref` checks the worker's ref before granting (as the default-branch lookup
 * already runs before granting): a ref that names no branch or tag of the repository is
 * `ref_not_found` (exit 2), and nothing changes -- no grant, no start marker, no dispatch POST,
 * no cancelled Claim, no attempt used. A branch or tag that exists launches. Real CLI entry
 * point, real local Git queue, GitHub stand-in (whose dispatch route answers 422 for an unknown ref).
 */
import { describe, expect, it } from 'vitest';
import { benchCli as cli, dispatcherEnv, isolateBenchEnvironment } from '../support/lifecycle-bench.ts';
import { countOps, createBench, dispatchPosts, TOKEN, type Bench } from './harness.ts';

let bench: Bench;
isolateBenchEnvironment(() => bench);

describe('launch --ref', () => {
  it('launch-ref: a --ref naming no branch or tag is ref_not_found before granting, and changes nothing; an existing tag launches', async () => {
    bench = await createBench();
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    dispatcherEnv();
    const before = (await bench.replayValid()).state.tip;
    for (const typo of ['mian', 'no such ref', 'refs/heads/mian', 'refs/tags/main']) {
      const r = await cli(bench, '--request-id', `typo-${typo}`, 'launch', '--next', '--ref', typo);
      expect(r, `${typo}: ${JSON.stringify(r.json)}`).toMatchObject({ code: 2, json: { ok: false, error: { code: 'ref_not_found' } } });
      expect(r.json.error.message).toContain(JSON.stringify(typo));
    }
    let p = await bench.replayValid();
    expect(p.state.tip).toBe(before);
    expect(p.state.dispatches.size).toBe(0);
    expect(countOps(p, 'ClaimCancellation')).toBe(0);
    expect(dispatchPosts(bench.fake)).toBe(0);

    // A tag at the worker revision is a ref the dispatch accepts: the grant commits and binds.
    bench.repo.refs.set('refs/tags/v1', bench.ref);
    const tagged = await cli(bench, '--request-id', 'tag-v1', 'launch', '--next', '--ref', 'v1');
    expect(tagged.json, JSON.stringify(tagged.json)).toMatchObject({ ok: true, launches: [{ outcome: 'bound', state: 'bound' }] });
    p = await bench.replayValid();
    expect(p.state.dispatches.size).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(1);
  });
});
