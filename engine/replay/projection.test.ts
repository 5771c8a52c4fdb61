/**
 * The front door (docs/architecture.md): what lib/ and the surfaces read through
 * `Projection` instead of its replay state, and `at`/`before` as the one cached
 * prefix replay (spec 7.13: the predecessor prefix reproduces an explanation).
 */
import { describe, expect, it } from 'vitest';
import { buildSmallQueue } from '../../tests/support/small-queue.ts';
import { replayBytes } from '../../tests/support/bytes.ts';
import { isProtocolError } from '../errors.ts';
import { projectionAt } from '../receipts/prefix.ts';
import { summarize } from './summary.ts';
import { Projection, projectionOf, replayPrefix } from './projection.ts';
import { stateOf } from '../state/source.ts';

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return e.code;
  }
}

const { ledger } = buildSmallQueue();
const lines = ledger.split('\n').filter((l) => l !== '');

describe('Projection reads (the front door)', () => {
  const p = replayBytes(ledger);
  const s = p.state;

  it('answers the queue-wide reads surfaces made through the state: repository, controls, typed policy and epoch, pools, reservations, fairness clocks', () => {
    expect(p.repository).toBe(s.repository);
    expect(p.controls).toEqual(s.controls);
    expect(p.policyEpoch).toBe(s.policy!.epoch);
    expect(p.policyRecord).toBe(s.policy);
    expect(p.policyHistory).toEqual(s.policyHistory);
    // Typed: no cast reads a pool's retry bound.
    expect(p.policy!.pools.default!.retry.max_attempts).toBe((s.policy!.policy.pools as Record<string, { retry: { max_attempts: number } }>).default!.retry.max_attempts);
    expect(p.poolNames).toEqual(['default']);
    expect(p.reservations.logical).toBe(s.outstandingClaims);
    expect(p.reservations.native).toBe(s.outstandingNative);
    expect(p.reservations.pendingByPool).toBe(s.pendingByPool);
    expect(p.fairness).toBe(s.fairness);
    expect(p.deployments).toBe(s.deployments);
    expect(p.checkpoint).toBeUndefined();
  });

  it('answers commits, commit info and position, the parsed commit, and the tip commit', () => {
    expect(p.commits).toHaveLength(lines.length);
    expect(p.commitCount).toBe(lines.length);
    const third = p.commits[2]!;
    expect(p.commitInfo(third.id)).toEqual(third);
    expect(p.commitPosition(third.id)).toBe(2);
    expect(p.commitInfo('q_missing')).toBeUndefined();
    expect(p.commit(third.id)).toEqual(JSON.parse(lines[2]!));
    expect(p.commit('q_missing')).toBeUndefined();
    expect(p.lastCommit!.id).toBe(p.tip);
  });

  it('answers records: claims, dispatches, requests, graphs, dependents, counts, latest observation by gate', () => {
    expect([...p.claims()]).toEqual([...s.claims.values()]);
    expect([...p.dispatches()]).toEqual([...s.dispatches.values()]);
    expect([...p.requests()]).toEqual([...s.requests.values()]);
    expect(p.workCount).toBe(s.works.size);
    expect(p.dispatchCount).toBe(s.dispatches.size);
    expect(p.requestCount).toBe(s.requests.size);
    expect(p.graphs.get('sdk-migration')).toEqual(s.graphs.get('sdk-migration'));
    const root = [...p.works()].find((w) => w.nodeKey === 'inspect-sdk-usage')!;
    expect([...p.dependents(root.workId)].map((id) => p.work(id)!.nodeKey).sort()).toEqual(['propose-code-changes', 'propose-docs-changes']);
    expect(p.dependents('w_missing')).toEqual([]);
    expect(p.observation('no-such-gate')).toBeUndefined();
    expect(p.issueLinks(root.workId)).toEqual([]);
  });

  it('a poisoned projection answers none of them (projection_invalid)', () => {
    const bad = replayBytes(ledger);
    bad.poison();
    for (const read of [() => bad.controls, () => bad.policy, () => bad.commits, () => [...bad.claims()], () => bad.graphs, () => bad.at(p.tip!)]) {
      expect(codeOf(read)).toBe('projection_invalid');
    }
  });

  it('projectionOf wraps a bare state for reads, and stateOf unwraps it again (engine-only)', () => {
    const wrapped = projectionOf(s);
    expect(wrapped.tip).toBe(p.tip);
    expect(projectionOf(p)).toBe(p);
    expect(stateOf(wrapped)).toBe(s);
    expect(stateOf(s)).toBe(s);
  });
});

describe('at / before: the one prefix replay', () => {
  it('equals a cold replay of the same prefix, for every commit', () => {
    const p = replayBytes(ledger);
    p.commits.forEach((c, i) => {
      const cold = replayBytes(`${lines.slice(0, i + 1).join('\n')}\n`);
      expect(summarize(p.at(c.id))).toEqual(summarize(cold));
      const before = i === 0 ? null : replayBytes(`${lines.slice(0, i).join('\n')}\n`);
      expect(summarize(p.before(c.id))).toEqual(before === null ? summarize(replayPrefix(p, 0)) : summarize(before));
    });
  });

  it('is cached: the same commit answers the same projection; the tip answers the projection itself', () => {
    const p = replayBytes(ledger);
    const mid = p.commits[5]!.id;
    const first = p.at(mid);
    expect(p.at(mid)).toBe(first);
    expect(p.before(p.commits[6]!.id)).toBe(first);
    expect(p.at(p.tip!)).toBe(p);
    expect(p.before(p.commits[0]!.id).commitCount).toBe(0);
    // replayPrefix itself is never cached: a caller that mutates its result (a scratch state) gets its own.
    expect(replayPrefix(p, 6)).not.toBe(replayPrefix(p, 6));
  });

  it('names an unknown commit unknown_commit; projectionAt delegates to it', () => {
    const p = replayBytes(ledger);
    expect(codeOf(() => p.at('q_nope'))).toBe('unknown_commit');
    expect(codeOf(() => p.before('q_nope'))).toBe('unknown_commit');
    expect(projectionAt(p, p.commits[3]!.id)).toBe(p.at(p.commits[3]!.id));
    expect(projectionAt(p, p.commits[3]!.id, false)).toBe(p.before(p.commits[3]!.id));
  });
});

describe('Projection across module copies', () => {
  it('a projection made by another copy of the module is still a Projection (Next.js loads one per layer; the console shares one runtime)', async () => {
    // A query string makes Vite load a second, independent instance of the module.
    const specifier = './projection.ts?second-copy';
    const copy = (await import(/* @vite-ignore */ specifier)) as typeof import('./projection.ts');
    expect(copy.Projection).not.toBe(Projection);
    const p = replayBytes(ledger);
    const foreign = new copy.Projection(p.state);
    expect(foreign instanceof Projection).toBe(true);
    expect(stateOf(foreign)).toBe(p.state);
    expect(projectionOf(foreign)).toBe(foreign);
    expect(copy.stateOf(p)).toBe(p.state);
    expect({ state: p.state } instanceof Projection).toBe(false);
    expect(stateOf(p.state)).toBe(p.state);
  });
});
