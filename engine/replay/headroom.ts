/**
 * The operating envelope as operators see it (spec 7.17, docs/operating-envelope.md "Operators and agents"): one view, the same
 * numbers in `fairway stats`, the console's headroom gauge and the MCP snapshot.
 *
 * - `bytes`: the retained canonical ledger (after `compact`, the checkpoint-rooted ledger);
 * - `ledger_bytes` (watermark) and `recovery_bytes` (reserve) of the installed Policy;
 * - `admission_remaining`: bytes new Work or Claims may still add before the watermark;
 * - `reserve`: worst-case lifecycle bytes still owed to admitted Work and open dispatch groups
 *   (replay/ledger-budget.ts), `reserve_remaining` what new admission may still add to it;
 * - `level`: the tighter of replay's two bounds (ledger-budget.ts `checkEnvelope`): the ledger
 *   against the watermark (new admission), and the ledger plus its owed reserve against
 *   watermark + reserve (every write). `ok` below 80 % of both, `near_watermark` from 80 % of
 *   either, `at_watermark` at either bound; `warning` is the same without `ok` (null). A queue
 *   whose owed reserve fills the second bound first refuses admission (`ledger_limit`) while its
 *   ledger is still well under the watermark, so the level must not say `ok` there.
 */
import { ledgerBudget, type BudgetReport } from './ledger-budget.ts';
import type { ReplayState } from '../state/state.ts';

/** Fraction of the watermark from which operators are warned. */
export const WARN_FRACTION = 0.8;

export type HeadroomLevel = 'ok' | 'near_watermark' | 'at_watermark';

export interface EnvelopeView extends BudgetReport {
  /** bytes / ledger_bytes, rounded to 0.001. */
  used_fraction: number;
  level: HeadroomLevel;
  warning: Exclude<HeadroomLevel, 'ok'> | null;
}

/** The level of `bytes` against `watermark` (pure; the console gauge colours follow it). */
export function headroomLevel(bytes: number, watermark: number): HeadroomLevel {
  if (watermark <= 0 || bytes >= watermark) return 'at_watermark';
  return bytes >= WARN_FRACTION * watermark ? 'near_watermark' : 'ok';
}

const SEVERITY: Readonly<Record<HeadroomLevel, number>> = { ok: 0, near_watermark: 1, at_watermark: 2 };

export function envelopeOf(report: BudgetReport): EnvelopeView {
  const used = report.ledger_bytes === 0 ? 1 : report.bytes / report.ledger_bytes;
  const admission = headroomLevel(report.bytes, report.ledger_bytes);
  const closure = headroomLevel(report.bytes + report.reserve, report.ledger_bytes + report.recovery_bytes);
  const level = SEVERITY[closure] > SEVERITY[admission] ? closure : admission;
  return { ...report, used_fraction: Math.round(used * 1000) / 1000, level, warning: level === 'ok' ? null : level };
}

export function envelopeView(state: ReplayState): EnvelopeView {
  return envelopeOf(ledgerBudget(state));
}
