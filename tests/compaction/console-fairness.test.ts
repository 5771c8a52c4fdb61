/**
 * The console's `/fairness` after compaction (spec 7.10, 7.17: the prior Git commit retains
 * earlier evidence): grants owed and deficits sum, over the window's decisions, the classes and
 * keys eligible at each; a checkpoint keeps no grant's packer pre-state, so a grant it replaced is
 * re-derived from the ledger at its prior Git commit, read through the console runtime's history
 * as the page reads it. With that history the table is the one before compaction; from the
 * compacted ledger file alone it says how many decisions were compacted and where they are. The
 * process-wide decision cache never answers for a ledger that does not retain the grant.
 */
import { beforeAll, expect, it } from 'vitest';
import { fairnessView, fairnessViewAcross, WINDOWS, type FairnessView } from '../../lib/console/views/fairness.ts';
import { ledgersBackTo } from '../../lib/publisher/history.ts';
import { compactedReference, fileRuntime, ledgerFile, referenceMissing, repoRuntime, type CompactedReference } from '../support/compacted-reference.ts';
import { describeReference } from '../support/reference.ts';

describeReference(!referenceMissing(), 'the console fairness view after compaction (reference-written queue, local Git)', () => {
  let q: CompactedReference;
  let before: Array<FairnessView | null>;

  beforeAll(async () => {
    q = await compactedReference();
    before = WINDOWS.map((w) => fairnessView(q.before, q.asOf, null, w));
  }, 120_000);

  it('before compaction every window grant\'s decision is re-derived', () => {
    for (const f of before) expect(f).toMatchObject({ windowDecisions: f!.windowGrants, compacted: null });
    expect(before[WINDOWS.indexOf(0)]!.windowGrants).toBe(240);
    expect(before[WINDOWS.indexOf(0)]!.classes.some((c) => c.deficit !== null && Math.abs(c.deficit) > 1)).toBe(true);
  });

  it('with the Git history reachable, every window\'s table (owed, deficits, eligible decisions, ages) is the one before compaction', async () => {
    const view = await repoRuntime(q.repo).view();
    expect(view.projection.tip).toBe(q.compacted.tip);
    const after = [];
    for (const w of WINDOWS) after.push(await fairnessViewAcross(view.projection, q.asOf, null, w, view.history));
    expect(after).toEqual(before);
  });

  it('from the compacted ledger file alone, the table says how many decisions were compacted into the checkpoint and names the Git commit holding them', async () => {
    const view = await fileRuntime(ledgerFile(q.repo)).view();
    for (const [i, w] of WINDOWS.entries()) {
      const f = (await fairnessViewAcross(view.projection, q.asOf, null, w, view.history))!;
      expect(f.windowGrants).toBe(before[i]!.windowGrants);
      expect(f.windowDecisions).toBe(0);
      expect(f.compacted).toEqual({ grants: f.windowGrants, commit: expect.stringMatching(/^q_/), checkpoint: q.compacted.tip, priorGitSha: q.prior });
      expect(f.classes.every((c) => c.owed === null && c.deficit === null)).toBe(true);
    }
  });

  it('decisions cached before an in-process compaction do not answer for the compacted ledger: it covers what the ledgers given retain, as a fresh process does', async () => {
    // The pre-compaction ledger's decisions are cached in this process (beforeAll).
    expect(fairnessView(q.before, q.asOf, null, 0)!.windowDecisions).toBe(240);
    const alone = fairnessView(q.compacted, q.asOf, null, 0)!;
    expect(alone.windowDecisions).toBe(0);
    expect(alone.classes.every((c) => c.owed === null)).toBe(true);
    // Given the ledger it replaced (read from Git), the decisions before compaction.
    const ledgers = await ledgersBackTo(q.compacted, q.compacted.checkpoint!.priorTip, repoRuntime(q.repo).history);
    expect(ledgers).toHaveLength(2);
    expect(fairnessView(q.compacted, q.asOf, null, 0, ledgers)).toEqual(before[WINDOWS.indexOf(0)]);
  });
});
