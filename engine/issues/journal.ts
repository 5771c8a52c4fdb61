/**
 * The projection journal (operator reference "Synchronization and recovery"): durable native
 * creation intent and verified receipts of backing-Issue writes. It lives beside the ledger on
 * its own branch (`<queue-branch>-issues`) and is written only by compare-and-swap on that
 * branch's tip, so two projectors cannot both hold the intent for one target.
 *
 * One canonical JSON record per line, keyed by target (`issue:<work_id>`,
 * `summary:<work_id>`, `claim:<claim_id>`):
 *
 * - `intent`: written and confirmed BEFORE the Issue or comment mutation is sent. It names
 *   the owner (the projecting run). An intent without a receipt is `pending`: the write may
 *   or may not have happened, and nothing here (marker text, an empty search) can prove it
 *   did not, so the target is never created again automatically.
 * - `receipt`: the verified answer (the Issue's resource identity, or the comment id).
 * - `rejected`: GitHub definitively refused the creation before executing it (a 4xx answer,
 *   including a rate-limit rejection). Only this releases an intent; a later hook may write a
 *   new one.
 * - `written`: the content digest (comments) or the status (Issues) last written and
 *   confirmed, so an unchanged target needs no request.
 * - `watermark` (key `watermark:<repository>`): GitHub's own time (its `Date` header, less a
 *   margin) before which every Issue change of the repository has been read. Issues the
 *   change feed (`GET /issues?since=`) does not list are as the projector last left them.
 * - `resolved`: an operator's checked resolution of a pending intent (`fairway issues
 *   resolve`): `adopted` with the receipt they verified, or `not_created`.
 * - `linked`: an Issue target bound by the ledger, not created by a projector: a Work
 *   admitted with a granted pre-existing `backing_issue`. No intent: nothing is created.
 * - `missing`: a bound Issue or comment answered 404/410 (deleted or transferred). It stays
 *   pending (`issue_missing`, `comment_missing`); a later `written` clears it for an Issue
 *   seen again (transferred back).
 * - `seen`: what the change feed showed of a bound Issue outside the run's batch (labels,
 *   state), so the watermark can move without losing that change: the run that projects the
 *   Issue later plans from it. A later `written` supersedes it.
 * - `written` may carry `state: "closed"`: the projector closed the Issue (completion policy
 *   `close-on-result`) or found it closed when closure was due; it is never closed again.
 *
 * Pure: parse, fold and check. A malformed journal is `journal_invalid`, never an empty one.
 */
import { canonicalize } from '../codec/index.ts';
import { fail } from '../errors.ts';
import type { JsonValue } from '../json.ts';
import type { ResourceIdentity } from '../state/state.ts';

export type JournalTarget = 'issue' | 'summary' | 'claim';

export type JournalRecord =
  | { v: 1; kind: 'intent'; key: string; target: JournalTarget; work_id: string; claim_id?: string; repository: string; owner: string; at: number }
  | { v: 1; kind: 'receipt'; key: string; resource?: ResourceIdentity; comment_id?: string; digest?: string; status?: string }
  | { v: 1; kind: 'rejected'; key: string; owner: string; http_status: number; reason: string }
  | { v: 1; kind: 'written'; key: string; digest?: string; status?: string; state?: 'closed' }
  | { v: 1; kind: 'resolved'; key: string; resolution: 'adopted' | 'not_created'; principal: string; resource?: ResourceIdentity; comment_id?: string }
  | { v: 1; kind: 'watermark'; key: string; repository: string; since: string }
  | { v: 1; kind: 'linked'; key: string; work_id: string; repository: string; resource: ResourceIdentity }
  | { v: 1; kind: 'missing'; key: string; http_status: number }
  | { v: 1; kind: 'seen'; key: string; labels: string[]; state: 'open' | 'closed' };

export interface JournalEntry {
  key: string;
  target: JournalTarget;
  workId: string;
  claimId?: string;
  repository: string;
  owner: string;
  /** The bound Issue (issue targets). */
  resource?: ResourceIdentity;
  /** The bound comment id (summary/claim targets). */
  commentId?: string;
  /** Content digest last confirmed written (comments). */
  digest?: string;
  /** Status last confirmed projected (issues). */
  status?: string;
  /** `pending`: intent without receipt; `bound`: receipt; `released`: definitively not created. */
  phase: 'pending' | 'bound' | 'released';
  /** Bound by the ledger (an admitted pre-existing Issue), not created by a projector. */
  linked?: boolean;
  /** The projector closed it (or found it closed when closure was due). */
  closed?: boolean;
  /** Answered 404/410 when last written or read. */
  missing?: boolean;
  /** What the change feed last showed of it while it was outside a run's batch. */
  seen?: { labels: string[]; state: 'open' | 'closed' };
}

export interface JournalState {
  entries: Map<string, JournalEntry>;
  /** Repository → watermark (ISO time). */
  watermarks: Map<string, string>;
  records: number;
}

export function issueKey(workId: string): string {
  return `issue:${workId}`;
}
export function summaryKey(workId: string): string {
  return `summary:${workId}`;
}
export function claimKey(claimId: string): string {
  return `claim:${claimId}`;
}

export function emptyJournal(): JournalState {
  return { entries: new Map(), watermarks: new Map(), records: 0 };
}

function bad(line: number, message: string): never {
  fail('journal_invalid', `projection journal line ${line}: ${message}`, { line });
}

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 1024;

/** Applies one record (mutates `state`); `line` is for messages. */
export function applyJournalRecord(state: JournalState, r: JournalRecord, line: number): void {
  if (r === null || typeof r !== 'object' || r.v !== 1 || !str(r.key)) bad(line, 'not a version-1 journal record with a key');
  const entry = state.entries.get(r.key);
  switch (r.kind) {
    case 'intent': {
      if (!['issue', 'summary', 'claim'].includes(r.target) || !str(r.work_id) || !str(r.repository) || !str(r.owner) || !Number.isSafeInteger(r.at)) bad(line, 'malformed intent');
      if (entry !== undefined && entry.phase !== 'released') bad(line, `a second intent for ${r.key} while the first is ${entry.phase}`);
      state.entries.set(r.key, {
        key: r.key, target: r.target, workId: r.work_id, ...(r.claim_id === undefined ? {} : { claimId: r.claim_id }), repository: r.repository, owner: r.owner, phase: 'pending',
      });
      break;
    }
    case 'receipt':
      if (entry === undefined || entry.phase !== 'pending') bad(line, `a receipt for ${r.key} without a pending intent`);
      if (entry.target === 'issue' ? r.resource === undefined : !str(r.comment_id)) bad(line, `a receipt for ${r.key} without its ${entry.target === 'issue' ? 'resource' : 'comment id'}`);
      entry.phase = 'bound';
      if (r.resource !== undefined) entry.resource = r.resource;
      if (r.comment_id !== undefined) entry.commentId = r.comment_id;
      if (r.digest !== undefined) entry.digest = r.digest;
      if (r.status !== undefined) entry.status = r.status;
      break;
    case 'rejected':
      if (entry === undefined || entry.phase !== 'pending') bad(line, `a rejection for ${r.key} without a pending intent`);
      if (r.owner !== entry.owner) bad(line, `a rejection for ${r.key} by ${r.owner}, not the intent's owner`);
      entry.phase = 'released';
      break;
    case 'written':
      if (entry === undefined || entry.phase !== 'bound') bad(line, `a write for ${r.key}, which is not bound`);
      if (r.digest !== undefined) entry.digest = r.digest;
      if (r.status !== undefined) entry.status = r.status;
      if (r.state !== undefined) {
        if (r.state !== 'closed' || entry.target !== 'issue') bad(line, `a state write for ${r.key}, which is not a closable Issue`);
        entry.closed = true;
      }
      delete entry.missing;
      delete entry.seen;
      break;
    case 'linked':
      if (entry !== undefined && entry.phase !== 'released') bad(line, `a ledger link for ${r.key}, which is already ${entry.phase}`);
      if (!r.key.startsWith('issue:') || !str(r.work_id) || !str(r.repository) || r.resource === undefined) bad(line, 'malformed ledger link');
      state.entries.set(r.key, { key: r.key, target: 'issue', workId: r.work_id, repository: r.repository, owner: 'ledger', phase: 'bound', linked: true, resource: r.resource });
      break;
    case 'missing':
      if (entry === undefined || entry.phase !== 'bound') bad(line, `a missing mark for ${r.key}, which is not bound`);
      if (!Number.isSafeInteger(r.http_status)) bad(line, 'malformed missing mark');
      entry.missing = true;
      break;
    case 'seen':
      if (entry === undefined || entry.phase !== 'bound' || entry.target !== 'issue') bad(line, `a feed snapshot for ${r.key}, which is not a bound Issue`);
      if (!Array.isArray(r.labels) || !r.labels.every((l) => typeof l === 'string') || (r.state !== 'open' && r.state !== 'closed')) bad(line, 'malformed feed snapshot');
      entry.seen = { labels: [...r.labels], state: r.state };
      break;
    case 'resolved':
      if (entry === undefined || entry.phase !== 'pending') bad(line, `a resolution for ${r.key} without a pending intent`);
      if (!str(r.principal)) bad(line, 'a resolution without its principal');
      if (r.resolution === 'not_created') entry.phase = 'released';
      else if (r.resolution === 'adopted') {
        if (entry.target === 'issue' ? r.resource === undefined : !str(r.comment_id)) bad(line, `an adoption for ${r.key} without what it adopts`);
        entry.phase = 'bound';
        if (r.resource !== undefined) entry.resource = r.resource;
        if (r.comment_id !== undefined) entry.commentId = r.comment_id;
      } else bad(line, 'unknown resolution');
      break;
    case 'watermark':
      if (!str(r.repository) || r.key !== `watermark:${r.repository}` || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(r.since)) bad(line, 'malformed watermark');
      state.watermarks.set(r.repository, r.since);
      break;
    default:
      bad(line, `unknown record kind ${JSON.stringify((r as { kind?: unknown }).kind)}`);
  }
  state.records++;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export function readJournal(bytes: Uint8Array | null): JournalState {
  const state = emptyJournal();
  if (bytes === null || bytes.length === 0) return state;
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return bad(1, 'not UTF-8');
  }
  if (!text.endsWith('\n')) bad(text.split('\n').length, 'the last record is not terminated (a torn write)');
  text.slice(0, -1).split('\n').forEach((line, i) => {
    let record: JournalRecord;
    try {
      record = JSON.parse(line) as JournalRecord;
    } catch {
      return bad(i + 1, 'not JSON');
    }
    if (canonicalize(record as unknown as JsonValue) !== line) bad(i + 1, 'not canonical JSON');
    applyJournalRecord(state, record, i + 1);
  });
  return state;
}

export function journalLines(records: readonly JournalRecord[]): string {
  return records.map((r) => `${canonicalize(r as unknown as JsonValue)}\n`).join('');
}

/** A deep copy of a journal state (planning against records not yet durable). */
export function cloneJournal(state: JournalState): JournalState {
  const entries = new Map([...state.entries].map(([k, v]) => [k, { ...v, ...(v.seen === undefined ? {} : { seen: { labels: [...v.seen.labels], state: v.seen.state } }) }]));
  return { entries, watermarks: new Map(state.watermarks), records: state.records };
}

/** Whether `r` still applies to `state` (another projector may have settled its key meanwhile). */
export function recordApplies(state: JournalState, r: JournalRecord): boolean {
  const e = state.entries.get(r.key);
  switch (r.kind) {
    case 'intent':
    case 'linked': return e === undefined || e.phase === 'released';
    case 'receipt':
    case 'rejected':
    case 'resolved': return e?.phase === 'pending';
    case 'written':
    case 'missing': return e?.phase === 'bound';
    case 'seen': return e?.phase === 'bound' && e.target === 'issue';
    case 'watermark': return true;
  }
}

/** The records of `records` that apply in order on a copy of `state`, and the copy with them folded in. */
export function foldApplicable(state: JournalState, records: readonly JournalRecord[]): { state: JournalState; applied: JournalRecord[] } {
  const copy = cloneJournal(state);
  const applied: JournalRecord[] = [];
  for (const r of records) {
    if (!recordApplies(copy, r)) continue;
    applyJournalRecord(copy, r, copy.records + 1);
    applied.push(r);
  }
  return { state: copy, applied };
}
