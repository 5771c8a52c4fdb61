/** The console headroom gauge model and the compaction preview (spec 7.17, issue 11 §4). */
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalize } from '../../../engine/codec/index.ts';
import type { JsonValue } from '../../../engine/json.ts';
import { buildCheckpointCommit, replayLedger, summarize, type Projection } from '../../../engine/replay/index.ts';
import type { BudgetReport } from '../../../engine/replay/ledger-budget.ts';
import { seedDemoDay } from '../../demo/day.ts';
import { Publisher } from '../../publisher/publisher.ts';
import { MemoryStore } from '../../../tests/support/memory-store.ts';
import { compactionPreview, headroomGauge } from './headroom.ts';

const report = (bytes: number, ledger_bytes = 1000): BudgetReport => ({
  bytes, ledger_bytes, reserve: 500, recovery_bytes: 4000,
  admission_remaining: Math.max(0, ledger_bytes - bytes), reserve_remaining: 3500, closure_remaining: Math.max(0, ledger_bytes + 4000 - bytes - 500),
});

describe('headroomGauge', () => {
  it('is green below 80 % of the watermark, amber from exactly 80 %, red at the watermark', () => {
    expect(headroomGauge(report(799)).colour).toBe('green');
    expect(headroomGauge(report(800))).toMatchObject({ colour: 'amber', level: 'near_watermark', usedPercent: 80 });
    expect(headroomGauge(report(999))).toMatchObject({ colour: 'amber', level: 'near_watermark' });
    expect(headroomGauge(report(1000))).toMatchObject({ colour: 'red', level: 'at_watermark', usedPercent: 100 });
  });

  it('caps the bar past the watermark (closure inside the reserve) and keeps the true numbers', () => {
    const g = headroomGauge(report(1300));
    expect(g).toMatchObject({ colour: 'red', usedPercent: 100 });
    expect(g.envelope).toMatchObject({ bytes: 1300, admission_remaining: 0, used_fraction: 1.3, warning: 'at_watermark' });
    expect(g.advice).toContain('ledger_limit');
  });

  it('keeps the envelope numbers unchanged (the same as fairway stats)', () => {
    const g = headroomGauge(report(420));
    expect(g.envelope).toMatchObject(report(420));
    expect(g.envelope.warning).toBeNull();
    expect(g.usedPercent).toBe(42);
  });
});

describe('compactionPreview', () => {
  const NOW = Date.UTC(2026, 4, 12, 15, 0, 0);
  let projection: Projection;

  beforeAll(async () => {
    const publisher = new Publisher(new MemoryStore('headroom'));
    await seedDemoDay(publisher, { now: NOW, probe: false });
    projection = (await publisher.cache.load()).projection!;
  });

  it('builds and replays the checkpoint compact would write: fewer bytes, the same records, the envelope on the retained ledger', async () => {
    const preview = compactionPreview(projection, NOW);
    const before = summarize(projection);
    expect(preview.alreadyCompact).toBe(false);
    expect(preview.bytesBefore).toBe(projection.envelope().bytes);
    expect(preview.bytesAfter).toBeLessThan(preview.bytesBefore);
    expect(preview.retained).toMatchObject({ works: before.works.total, claims: before.claims.total, openClaims: before.claims.open });
    expect(preview.after.bytes).toBe(preview.bytesAfter);
    expect(preview.after.admission_remaining).toBe(preview.after.ledger_bytes - preview.bytesAfter);
    expect(preview.after.reserve, 'the owed reserve survives compaction').toBe(projection.envelope().reserve);

    // The preview is the checkpoint compact writes (same builder): replayed, it is already compact.
    const root = buildCheckpointCommit(projection, { priorGitSha: 'a'.repeat(40), actor: { role: 'administrator', principal: '1', repository: projection.state.repository! }, at: NOW });
    const compacted = replayLedger(`${canonicalize(root as unknown as JsonValue)}\n`);
    expect(compacted.envelope().bytes).toBe(preview.bytesAfter);
    expect(compactionPreview(compacted, NOW)).toMatchObject({ alreadyCompact: true, replacedCommits: 0, bytesAfter: preview.bytesAfter });
  });
});
