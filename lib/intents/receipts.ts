/**
 * Processing receipts (spec 7.13 "Minimal durable-to-human receipt"): one
 * bounded JSON report per processing run (identifiers and codes, never
 * payloads), the immutable worker assignments as separate files for the
 * launcher, and a few-line Markdown summary suitable for a job summary with
 * every submitted identifier escaped.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ProtocolError } from '../../engine/errors.ts';
import type { DispatchReceipt } from '../../engine/receipts/dispatch.ts';
import type { JsonObject } from '../../engine/json.ts';
import { refuseLinkedDirectory, writeFileAtomic, writeJsonAtomic } from './files.ts';

export const RECEIPTS_SCHEMA = 'fairway.receipts/1';
/**
 * `replayed`: the intent's own request id was already committed (a retry). `already_admitted`: a
 * submit whose every node exists exactly as staged; nothing was published, and its request id
 * (`request_id`) was never committed: the Work was admitted by `admitted_commits`.
 */
export type IntentStatus = 'committed' | 'replayed' | 'already_admitted' | 'no_grant' | 'rejected' | 'suppressed';

export interface DispatchDetail extends Partial<DispatchReceipt> {
  /** The activation snapshot's prediction for the pool (non-authoritative). */
  prediction: { label: 'activation_snapshot'; authoritative: false; work_id: string | null; reason: string };
  /** True when trusted processing granted other Work than the snapshot predicted (spec 7.12 late binding). */
  late_bound: boolean;
  requested: { pool: string; max_claims: number; max_dispatches: number };
  /** Assignment files (relative to the receipts directory), one per dispatch group. */
  assignment_files: string[];
}

export interface IntentReceipt {
  intent_id: string | null;
  seq: number | null;
  tool: string;
  status: IntentStatus;
  file?: string;
  request_id?: string;
  intent_fingerprint?: string;
  request_fingerprint?: string;
  commit_id?: string | null;
  claim_handle?: string;
  claim_id?: string;
  /** A wrap-up cancellation of a Claim that had no finish intent (spec 7.14). */
  wrap_up?: boolean;
  outcome?: 'completed' | 'cancelled';
  work_ids?: string[];
  /** `already_admitted`: the Work this submit names, all admitted before, and the commits that admitted it. */
  existing_work_ids?: string[];
  admitted_commits?: string[];
  dispatch?: DispatchDetail;
  error?: { code: string; message: string };
}

export interface ProcessReport {
  ok: true;
  schema: typeof RECEIPTS_SCHEMA;
  snapshot_id: string;
  role: string;
  source_tip: string | null;
  observed_tip: string | null;
  processed_at: number;
  counts: Record<IntentStatus, number>;
  receipts: IntentReceipt[];
  files: { receipts: string; summary: string; assignments: string[] };
}

export function countStatuses(receipts: readonly IntentReceipt[]): Record<IntentStatus, number> {
  const counts: Record<IntentStatus, number> = { committed: 0, replayed: 0, already_admitted: 0, no_grant: 0, rejected: 0, suppressed: 0 };
  for (const r of receipts) counts[r.status] += 1;
  return counts;
}

/**
 * Escapes text for a Markdown table cell (no HTML, links, code spans or pipes survive). GitHub
 * also turns bare URLs, `www.` names (after any of `_*~(` too) and e-mail addresses into links:
 * a zero-width space after `://`'s colon, every `www` before a dot and `@` breaks each (the text
 * reads the same).
 */
export function md(text: string): string {
  return text
    .replace(/[\\`*{}[\]()<>#+!|~&]/g, (c) => `\\${c}`)
    .replace(/[\r\n]+/g, ' ')
    .replace(/:\/\//g, ':\u200b//')
    .replace(/www\./gi, (w) => `${w.slice(0, 3)}\u200b.`)
    .replace(/@/g, '@\u200b')
    .slice(0, 200);
}

/**
 * An id shortened for a table cell: its head and its tail. The ids of one activation share a long
 * head (`wq-dispatch-<activation>-…`), so the tail is what tells rows apart.
 */
export function short(id: string | null | undefined): string {
  if (id === null || id === undefined) return '-';
  return id.length > 20 ? `${id.slice(0, 9)}…${id.slice(-10)}` : id;
}

function detail(r: IntentReceipt): string {
  if (r.error !== undefined) return `${r.error.code}: ${r.error.message}`;
  if (r.dispatch !== undefined) {
    const d = r.dispatch;
    if (r.status === 'no_grant') return `no grant (${d.limiting_reason ?? '-'})`;
    return `${d.granted_claims}/${d.requested_claims} Claims in ${d.reserved_dispatches} dispatch(es), ${d.grant_status}, limited by ${d.limiting_reason}${d.late_bound ? ', late-bound' : ''}`;
  }
  if (r.outcome !== undefined) return `${r.outcome}${r.wrap_up ? ' (wrap-up: no finish intent)' : ''}`;
  if (r.existing_work_ids !== undefined) return `${r.existing_work_ids.length} Work already admitted`;
  if (r.work_ids !== undefined) return `${r.work_ids.length} Work admitted`;
  return '';
}

export function renderSummary(report: ProcessReport): string {
  const c = report.counts;
  const lines = [
    `### Work queue intents (${md(report.role)})`,
    '',
    `${report.receipts.length} processed: ${c.committed} committed, ${c.replayed} already committed, ${c.already_admitted} already admitted, ${c.no_grant} no grant, ${c.suppressed} suppressed, ${c.rejected} rejected. Snapshot tip ${md(short(report.source_tip))}, queue tip now ${md(short(report.observed_tip))}.`,
    '',
    '| # | intent | tool | Claim | status | request | commit | detail |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of report.receipts) {
    lines.push(`| ${r.seq ?? '-'} | ${md(short(r.intent_id))} | ${md(r.tool)} | ${md(r.claim_handle ?? '-')} | ${r.status} | ${md(short(r.request_id))} | ${md(short(r.commit_id))} | ${md(detail(r))} |`);
  }
  lines.push('', 'Staged intents are not grants: only committed rows changed the queue. Details are in receipts.json.');
  return `${lines.join('\n')}\n`;
}

/** Removes receipts.json and summary.md from `dir` (a run writes its own; none survive from before it). */
export async function clearReceipts(dir: string): Promise<void> {
  for (const name of ['receipts.json', 'summary.md']) {
    try {
      await rm(join(dir, name), { force: true });
    } catch (e) {
      const errno = (e as NodeJS.ErrnoException).code;
      if (typeof errno !== 'string') throw e;
      throw new ProtocolError('output_unwritable', `cannot remove the earlier ${name} in ${dir}: ${errno}`, {}, { path: join(dir, name), errno });
    }
  }
}

/** Writes the assignment files, receipts.json and summary.md; returns the report with its file names. */
export async function writeReceipts(dir: string, report: Omit<ProcessReport, 'files'>, assignments: Map<string, JsonObject>): Promise<ProcessReport> {
  await refuseLinkedDirectory(dir, 'assignments');
  const files: string[] = [];
  for (const [dispatchId, assignment] of assignments) {
    const name = join('assignments', `${dispatchId}.json`);
    await writeJsonAtomic(join(dir, name), assignment);
    files.push(name);
  }
  const full: ProcessReport = { ...report, files: { receipts: 'receipts.json', summary: 'summary.md', assignments: files } };
  await writeJsonAtomic(join(dir, 'receipts.json'), full);
  await writeFileAtomic(join(dir, 'summary.md'), renderSummary(full));
  return full;
}
