/**
 * The console's headroom gauge and compaction preview (spec 7.17, docs/operating-envelope.md "Operators and agents"): the same
 * envelope numbers as `fairway stats` (Projection.envelope), drawn as a bar of the watermark
 * that is green below 80 %, amber from 80 % and red at the watermark, and linked to what
 * `compact` would retain (a checkpoint candidate built and replayed here, never written).
 */
import { canonicalize } from '../../../engine/codec/index.ts';
import type { JsonValue } from '../../../engine/json.ts';
import { buildCheckpointCommit, envelopeOf, replayLedger, summarize, type EnvelopeView, type HeadroomLevel, type Projection } from '../../../engine/replay/index.ts';
import type { BudgetReport } from '../../../engine/replay/ledger-budget.ts';

export type GaugeColour = 'green' | 'amber' | 'red';

export interface HeadroomGauge {
  envelope: EnvelopeView;
  level: HeadroomLevel;
  colour: GaugeColour;
  /** Width of the used part of the bar, 0–100 (the ledger can sit past the watermark: capped at 100). */
  usedPercent: number;
  /** Where the 80 % warning mark sits on the bar (percent). */
  warnPercent: number;
  /** One sentence an operator can act on. */
  advice: string;
}

const COLOURS: Record<HeadroomLevel, GaugeColour> = { ok: 'green', near_watermark: 'amber', at_watermark: 'red' };

/** The gauge model of an envelope report (pure: unit-tested at 80 % and at the watermark). */
export function headroomGauge(report: BudgetReport): HeadroomGauge {
  const envelope = envelopeOf(report);
  const usedPercent = report.ledger_bytes <= 0 ? 100 : Math.min(100, Math.floor((report.bytes / report.ledger_bytes) * 1000) / 10);
  const advice = envelope.level === 'at_watermark'
    ? 'At the envelope limit (the admission watermark, or watermark + reserve counting the lifecycle bytes owed): new Work and Claims are refused (ledger_limit); closure still commits inside the reserve. Compact to reclaim.'
    : envelope.level === 'near_watermark'
      ? 'Past 80% of the admission watermark or of watermark + reserve (counting the lifecycle bytes owed): compact soon.'
      : 'Admission open.';
  return { envelope, level: envelope.level, colour: COLOURS[envelope.level], usedPercent, warnPercent: 80, advice };
}

export interface CompactionPreview {
  /** The ledger is already a single checkpoint root: compact would change nothing. */
  alreadyCompact: boolean;
  bytesBefore: number;
  bytesAfter: number;
  replacedCommits: number;
  /** Records the checkpoint root keeps (live and terminal Work, Claims, dispatch groups, requests). */
  retained: { works: number; openWorks: number; claims: number; openClaims: number; dispatches: number; unreleasedDispatches: number; requests: number };
  /** The envelope measured on the retained ledger. */
  after: EnvelopeView;
}

/** The placeholder prior Git commit of a preview (compact names the real branch commit). */
const PREVIEW_SHA = '0'.repeat(40);

/** What `fairway compact` would retain from `projection`, built and replayed in memory. */
export function compactionPreview(projection: Projection, asOf: number): CompactionPreview {
  const before = projection.envelope();
  if (projection.commitCount === 1 && projection.checkpoint !== undefined) {
    return { alreadyCompact: true, bytesBefore: before.bytes, bytesAfter: before.bytes, replacedCommits: 0, retained: retainedOf(projection), after: before };
  }
  const at = Math.max(asOf, projection.lastCommit!.at);
  const actor = { role: 'administrator' as const, principal: '1', repository: projection.repository! };
  const commit = buildCheckpointCommit(projection, { priorGitSha: PREVIEW_SHA, actor, at });
  const compacted = replayLedger(`${canonicalize(commit as unknown as JsonValue)}\n`);
  const after = compacted.envelope();
  return { alreadyCompact: false, bytesBefore: before.bytes, bytesAfter: after.bytes, replacedCommits: projection.commitCount, retained: retainedOf(compacted), after };
}

function retainedOf(p: Projection): CompactionPreview['retained'] {
  const s = summarize(p);
  let unreleased = 0;
  for (const group of p.dispatches()) if (!group.released) unreleased++;
  return {
    works: s.works.total,
    openWorks: (s.works.by_state.available ?? 0) + (s.works.by_state.claimed ?? 0),
    claims: s.claims.total,
    openClaims: s.claims.open,
    dispatches: p.dispatchCount,
    unreleasedDispatches: unreleased,
    requests: p.requestCount,
  };
}
