/**
 * The console's Work views after compaction (spec 7.10, 7.17: the prior Git commit retains
 * earlier evidence). A checkpoint keeps each request's receipt (commit id and decision time) but
 * not the commits themselves: a Work's admission time is its admission receipt's, so the Work
 * page, the explorer's ages and the fairness table's ages are those before compaction, with or
 * without the Git history. It keeps a DeliveryFailure's operation and each Observation but not
 * their commits (a foreign writer's DeliveryFailure request is not Fairway's stable one), nor the
 * commits that touched a Work: the Work page reads those from the ledger at the checkpoint's
 * prior Git commit (the runtime's history, back to the Work's admission, as the page reads it),
 * and from the compacted ledger file alone says they were compacted and where they are.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Projection } from '../../engine/replay/index.ts';
import { admittedAt } from '../../lib/console/views/status.ts';
import { workDetail } from '../../lib/console/views/work.ts';
import { DOTCOM_HOST } from '../../lib/github/host.ts';
import { ledgersBackTo, type HistoryReader } from '../../lib/publisher/history.ts';
import { compactedReference, fileRuntime, ledgerFile, referenceMissing, repoRuntime, type CompactedReference } from '../support/compacted-reference.ts';
import { describeReference } from '../support/reference.ts';

const admissions = (p: Projection): number[] => [...p.works()].map((w) => admittedAt(p, w));

/** The Work pages (without the raw record) of every Work with a DeliveryFailure or an Issue/PR gate, and of every tenth other one. */
async function workPages(p: Projection, asOf: number, history?: HistoryReader) {
  const pages = [];
  let i = 0;
  for (const w of p.works()) {
    if (w.barrier !== 'failed' && !w.dependsOn.some((e) => e.kind !== 'work') && i++ % 10 !== 0) continue;
    const { work: _record, ...page } = workDetail(p, w.workId, asOf, DOTCOM_HOST, await ledgersBackTo(p, w.admittedCommit, history))!;
    pages.push(page);
  }
  return pages;
}

describeReference(!referenceMissing(), 'the console Work views after compaction (reference-written queue, local Git)', () => {
  let q: CompactedReference;

  beforeAll(async () => {
    q = await compactedReference();
  }, 120_000);

  it('a Work\'s admission time is its admission commit\'s decision time, before and after compaction (its receipt\'s), with or without the Git history', async () => {
    const expected = admissions(q.before);
    expect(expected).toEqual([...q.before.works()].map((w) => q.before.commitInfo(w.admittedCommit)!.at));
    expect(expected.some((at, i) => at !== [...q.before.works()][i]!.enqueued)).toBe(true);
    expect(admissions((await repoRuntime(q.repo).view()).projection)).toEqual(expected);
    expect(admissions((await fileRuntime(ledgerFile(q.repo)).view()).projection)).toEqual(expected);
  });

  it('with the Git history reachable, each Work page keeps its DeliveryFailure\'s commit, its gates\' Observation commits and every commit that touched it', async () => {
    const before = await workPages(q.before, q.asOf);
    const failures = before.filter((w) => w.deliveryFailure !== null);
    expect(failures).toHaveLength(3);
    expect(failures.every((w) => w.deliveryFailure!.commitId !== null && w.history.some((h) => h.commitId === w.deliveryFailure!.commitId))).toBe(true);
    expect(before.some((w) => w.dependencies.some((d) => d.kind === 'gate' && d.gate.observation?.commitId?.startsWith('q_')))).toBe(true);
    expect(before.every((w) => w.compacted === null)).toBe(true);
    const view = await repoRuntime(q.repo).view();
    expect(view.projection.tip).toBe(q.compacted.tip);
    expect(await workPages(view.projection, q.asOf, view.history)).toEqual(before);
  });

  it('from the compacted ledger file alone, each Work page says its earlier commits were compacted into the checkpoint and names the Git commit holding them', async () => {
    const before = await workPages(q.before, q.asOf);
    const view = await fileRuntime(ledgerFile(q.repo)).view();
    const offline = await workPages(view.projection, q.asOf, view.history);
    expect(offline).toHaveLength(before.length);
    for (const [i, w] of offline.entries()) {
      expect(w.compacted).toEqual({ checkpoint: q.compacted.tip, priorGitSha: q.prior });
      expect(w.history).toEqual([]);
      // The DeliveryFailure itself is the checkpoint's: only its commit (and so its time) is elsewhere.
      const failure = before[i]!.deliveryFailure;
      expect(w.deliveryFailure).toEqual(failure === null ? null : { ...failure, commitId: null, at: null });
      for (const d of w.dependencies) if (d.kind === 'gate' && d.gate.observation !== null) expect(d.gate.observation.commitId).toBeNull();
    }
  });
});
