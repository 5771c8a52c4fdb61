/**
 * The console's pause history and paused banners after compaction (spec 7.10, 7.17: the prior
 * Git commit retains earlier evidence). A checkpoint keeps the controls' values and every
 * request's receipt, not a Control's operation: the overview's pause periods and control events,
 * its "paused since" and every page's banner read the Controls a checkpoint replaced from the
 * ledger at its prior Git commit (the runtime's history, as the pages read it). From the
 * compacted ledger file alone they say how many control commits were compacted and where.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Projection } from '../../engine/replay/index.ts';
import type { HistoryReader } from '../../lib/publisher/history.ts';
import { controlLedgers, overviewView, pausedSince } from '../../lib/console/views/overview.ts';
import { compactedReference, fileRuntime, ledgerFile, referenceMissing, repoRuntime, type CompactedReference } from '../support/compacted-reference.ts';
import { describeReference } from '../support/reference.ts';

/** What the overview and the banner show of the controls, read as the pages read them. */
async function pauses(p: Projection, asOf: number, history?: HistoryReader) {
  const ledgers = await controlLedgers(p, history);
  const o = overviewView(p, asOf, ledgers);
  return {
    events: o.controlEvents, periods: o.pauses, grants: o.grantsPausedSince, admission: o.admissionPausedSince, compacted: o.controlsCompacted,
    banner: pausedSince(p, 'grants_paused', ledgers), admissionBanner: pausedSince(p, 'admission_paused', ledgers),
  };
}

describeReference(!referenceMissing(), 'the console pause history after compaction (reference-written queue, local Git)', () => {
  let q: CompactedReference;
  let before: Awaited<ReturnType<typeof pauses>>;

  beforeAll(async () => {
    q = await compactedReference();
    before = await pauses(q.before, q.asOf);
  }, 120_000);

  it('before compaction: two pauses, the second open since the maintenance Control', () => {
    expect(before.periods.map((p) => [p.reason, p.to === null])).toEqual([['incident', false], ['maintenance', true]]);
    expect(before.grants).toMatchObject({ reason: 'maintenance', to: null });
    expect(before.banner).toEqual({ at: before.grants!.from, reason: 'maintenance' });
    expect(before.compacted).toBeNull();
    expect(q.compacted.controls.grants_paused).toBe(true);
  });

  it('with the Git history reachable, the pause periods, control events, "paused since" and the banner are those before compaction', async () => {
    const view = await repoRuntime(q.repo).view();
    expect(view.projection.tip).toBe(q.compacted.tip);
    expect(await pauses(view.projection, q.asOf, view.history)).toEqual(before);
  });

  it('from the compacted ledger file alone, the history and the banner say the three Controls were compacted into the checkpoint and name the Git commit holding them', async () => {
    const view = await fileRuntime(ledgerFile(q.repo)).view();
    const where = { commits: 3, checkpoint: q.compacted.tip, priorGitSha: q.prior };
    expect(await pauses(view.projection, q.asOf, view.history)).toEqual({
      events: [], periods: [], grants: null, admission: null, compacted: where, banner: { compacted: where }, admissionBanner: null,
    });
  });
});
