/**
 * `fairway trace`: the causal events of one request or one Claim (operator reference "trace").
 *
 * An event is a commit that IS the request (its `request.id`), or whose operations or worker
 * actor name one of the followed Claims or dispatch groups by their exact ids (`claim_id`,
 * `authority_claim_id`, `dispatch_id`; the actor's `dispatch_id` for a worker's finish). Ids are
 * compared as values, never as substrings of a commit's text, and a Checkpoint is not an event
 * of any request: it summarises them.
 *
 * After compaction the request's own commit (or the Claim's grant) may precede the checkpoint.
 * With the pre-compaction ledgers (`earlier`, oldest first: each one read through the next one's
 * checkpoint `prior_git_sha`, back to one that holds the anchor) the trace is their events in
 * order followed by the retained ones; when the ledgers reached do not hold the anchor, the
 * events are answered with `compacted` naming where the earlier ones are, and a trace with no
 * event at all is `history_compacted`.
 */
import { fail } from '../engine/errors.ts';
import type { JsonObject } from '../engine/json.ts';
import { historyCompacted } from '../engine/receipts/committed.ts';
import type { Projection } from '../engine/replay/index.ts';

export interface TraceSelection {
  requestId?: string;
  claimId?: string;
}

export interface TraceEvent {
  ordinal: number;
  commit_id: string;
  kind: string;
  at: number;
  role: string;
  summary: string;
}

/** What a trace follows: the request id (if any), the Claims and their dispatch groups, and the commit that anchors it. */
interface Followed {
  requestId: string | null;
  ids: ReadonlySet<string>;
  anchor: string;
}

function followed(p: Projection, sel: TraceSelection): Followed {
  if (sel.requestId !== undefined) {
    const r = p.request(sel.requestId);
    if (r === undefined) fail('unknown_request', `request ${sel.requestId} is not committed`);
    const ids = new Set<string>(r.claimIds);
    for (const c of r.claimIds) {
      const claim = p.claim(c);
      if (claim !== undefined) ids.add(claim.dispatchId);
    }
    return { requestId: sel.requestId, ids, anchor: r.commitId };
  }
  const c = p.claim(sel.claimId!);
  if (c === undefined) fail('unknown_claim', `Claim ${sel.claimId} is not in the ledger`);
  return { requestId: null, ids: new Set([c.claimId, c.dispatchId]), anchor: c.commitId };
}

const NAMED = ['claim_id', 'authority_claim_id', 'dispatch_id'] as const;

/** Whether `commit` is an event of what `f` follows. */
function isEvent(commit: { request: { id: string }; actor: JsonObject; operations: readonly JsonObject[] }, f: Followed): boolean {
  if (commit.request.id === f.requestId) return true;
  if (typeof commit.actor.dispatch_id === 'string' && f.ids.has(commit.actor.dispatch_id)) return true;
  for (const op of commit.operations) {
    if (op.kind === 'Checkpoint') return false;
    for (const field of NAMED) {
      const v = op[field];
      if (typeof v === 'string' && f.ids.has(v)) return true;
    }
  }
  return false;
}

function eventsOf(p: Projection, f: Followed): TraceEvent[] {
  const events: TraceEvent[] = [];
  for (const info of p.commits) {
    const commit = p.commit(info.id);
    if (commit === undefined || !isEvent(commit as unknown as Parameters<typeof isEvent>[0], f)) continue;
    const kinds = [...new Set(commit.operations.map((op) => op.kind))].join('+');
    events.push({ ordinal: info.ordinal, commit_id: info.id, kind: info.kind, at: info.at, role: info.role, summary: `${kinds} (${commit.operations.length} ops)` });
  }
  return events;
}

/** The commit `sel`'s trace starts from (its request's, or its Claim's grant). */
export function traceAnchor(p: Projection, sel: TraceSelection): string {
  return followed(p, sel).anchor;
}

/**
 * The trace of `sel` over `p`, paginated. `earlier`: the pre-compaction ledgers Git history still
 * has, oldest first, each the one its successor's checkpoint replaced (none: unreachable).
 */
export function traceView(p: Projection, sel: TraceSelection, offset: number, limit: number, earlier: readonly Projection[] = []) {
  const f = followed(p, sel);
  const ledgers = [...earlier, p];
  const events = ledgers.flatMap((l) => eventsOf(l, f));
  const oldest = ledgers[0]!;
  const compacted = oldest.checkpoint !== undefined && oldest.commitText(f.anchor) === undefined;
  const what = sel.requestId !== undefined ? `the history of request ${sel.requestId}` : `the history of Claim ${sel.claimId}`;
  if (compacted && events.length === 0) historyCompacted(oldest, f.anchor, what);
  const shown = events.slice(offset, offset + limit);
  const page = { total: events.length, offset, limit, next_offset: offset + shown.length < events.length ? offset + shown.length : null, events: shown };
  if (!compacted) return page;
  // The earliest events precede the oldest checkpoint reached and are not read here.
  return { ...page, compacted: { commit: f.anchor, checkpoint: oldest.commits[0]?.id ?? null, prior_git_sha: oldest.checkpoint!.priorGitSha } };
}
