/**
 * The console's Work views after compaction (spec 7.10, 7.17: the prior Git commit retains
 * earlier evidence). A checkpoint keeps each request's receipt (commit id and decision time) but
 * not the commits themselves: a Work's admission time is its admission receipt's, so the Work
 * page, the explorer's ages and the fairness table's ages are those before compaction, with or
 * without the Git history.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Projection } from '../../engine/replay/index.ts';
import { admittedAt } from '../../lib/console/views/status.ts';
import { compactedReference, fileRuntime, ledgerFile, referenceMissing, repoRuntime, type CompactedReference } from '../support/compacted-reference.ts';
import { describeReference } from '../support/reference.ts';

const admissions = (p: Projection): number[] => [...p.works()].map((w) => admittedAt(p, w));

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
});
