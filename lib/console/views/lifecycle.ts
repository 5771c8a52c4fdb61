/**
 * The lifecycle of one grant after its commit (spec 7.8, 7.14, 7.15): launch
 * markers, run binding, each Claim's finish, delivery barrier and the native
 * Release, found in later commits of the validated ledger (bounded scan), and
 * each group's recorded run binding conflict with the operator's ways out
 * (spec 7.8, §8.2 "Launch recovery"; docs/launch-recovery.md).
 */
import type { JsonObject } from '../../../engine/json.ts';
import type { Projection } from '../../../engine/replay/index.ts';
import type { DispatchReceipt } from '../../../engine/receipts/dispatch.ts';
import { conflictRecorded } from '../../../engine/lifecycle/dispatch.ts';
import { runUrl } from './admin-targets.ts';
import { formatTime, shortId } from './format.ts';
import { mermaidText } from './mermaid.ts';

export interface LifecycleEvent {
  commitId: string;
  requestId: string;
  at: number;
  role: string;
  kind: string;
  dispatchId: string | null;
  claimId: string | null;
  detail: string;
}

const RELEVANT = new Set(['dispatch', 'release', 'finish', 'result', 'delivery_failure', 'cancel_work', 'cancel_claim']);
const MAX_SCANNED = 20_000;
const MAX_EVENTS = 200;

export function lifecycleEvents(projection: Projection, grantCommit: string, claimIds: readonly string[]): LifecycleEvent[] {
  const claims = new Set(claimIds);
  const groups = new Set<string>();
  for (const id of claimIds) {
    const c = projection.claim(id);
    if (c !== undefined) groups.add(c.dispatchId);
  }
  const start = (projection.commitPosition(grantCommit) ?? projection.commits.length) + 1;
  const end = Math.min(projection.commits.length, start + MAX_SCANNED);
  const events: LifecycleEvent[] = [];
  for (let i = start; i < end && events.length < MAX_EVENTS; i++) {
    const info = projection.commits[i]!;
    if (!RELEVANT.has(info.kind)) continue;
    const ops = (JSON.parse(projection.commitText(info.id)!) as { operations: JsonObject[] }).operations;
    for (const op of ops) {
      const dispatchId = typeof op.dispatch_id === 'string' ? op.dispatch_id : null;
      const claimId = typeof op.claim_id === 'string' ? op.claim_id : null;
      const mine = (dispatchId !== null && groups.has(dispatchId) && (op.kind === 'Dispatch' || op.kind === 'Release')) || (claimId !== null && claims.has(claimId));
      if (!mine) continue;
      let detail = '';
      if (op.kind === 'Dispatch') detail = `${String(op.state)}${op.run ? ` run ${String((op.run as JsonObject).run_id)}` : ''}${op.reason ? ` (${String(op.reason)})` : ''}`;
      else if (op.kind === 'ClaimCancellation') detail = String(op.reason);
      else if (op.kind === 'DeliveryFailure') detail = `${String(op.reason)}, effects ${String(op.disposition)}`;
      else if (op.kind === 'Completion') detail = `run ${String(op.run_id)}`;
      events.push({ commitId: info.id, requestId: info.requestId, at: info.at, role: info.role, kind: String(op.kind), dispatchId: dispatchId ?? projection.claim(claimId ?? '')?.dispatchId ?? null, claimId, detail });
    }
  }
  return events;
}

const PARTICIPANT: Record<string, string> = { dispatcher: 'D', worker: 'W', reconciler: 'R', administrator: 'A', producer: 'P' };

/** A Mermaid sequence diagram of the grant and its lifecycle (labels escaped). */
export function lifecycleSequence(receipt: DispatchReceipt, events: readonly LifecycleEvent[], grantAt: number): string {
  const handleOf = new Map(receipt.claims.map((c) => [c.claim_id, c.handle]));
  const lines = [
    'sequenceDiagram',
    '  participant D as Dispatcher',
    '  participant Q as Queue ledger',
    '  participant W as Worker run',
    '  participant R as Reconciler',
  ];
  if (events.some((e) => e.role === 'administrator')) lines.push('  participant A as Operator');
  lines.push(`  D->>Q: ${mermaidText(`dispatch_next: ${receipt.granted_claims}/${receipt.requested_claims} Claims, ${receipt.grant_status} (${receipt.limiting_reason})`, 120)}`);
  lines.push(`  Note over D,Q: ${mermaidText(formatTime(grantAt), 40)}`);
  for (const e of events) {
    const who = PARTICIPANT[e.role] ?? 'R';
    const member = e.claimId !== null ? ` ${handleOf.get(e.claimId) ?? ''}` : '';
    const group = e.dispatchId !== null ? ` ${shortId(e.dispatchId, 6)}` : '';
    const text = `${e.kind}${member}${e.kind === 'Dispatch' || e.kind === 'Release' ? group : ''}${e.detail ? `: ${e.detail}` : ''} @ ${formatTime(e.at).slice(11)}`;
    lines.push(`  ${who}->>Q: ${mermaidText(text, 120)}`);
  }
  return lines.join('\n');
}

export interface ConflictCandidate {
  runId: string;
  /** The run on GitHub, like the console's other run links; null when the repository is not an owner/repo name. */
  runUrl: string | null;
  /** True once the ledger records this candidate's exact terminal evidence. */
  terminal: boolean;
}

export interface ConflictView {
  dispatchId: string;
  code: 'run_binding_conflict';
  /** open: no candidate may bind and capacity stays reserved; resolved: an administrator bound one candidate; released. */
  status: 'open' | 'resolved' | 'released';
  /** The candidate an administrator's resolution bound, once resolved. */
  boundRunId: string | null;
  /** Every candidate run the conflict's receipt named, in recorded order. */
  candidates: ConflictCandidate[];
  /** How many candidates the receipt could not name (its `+N`): the terminal exit is then closed. */
  unnamed: number;
  /** The operator's ways out while the conflict is open (empty once it is settled). */
  wayOut: string[];
}

/**
 * The recorded run binding conflict of group `dispatchId` (DispatchRecord.conflict, kept by
 * checkpoints), or null when none was recorded. Read through the Projection; `host` is the
 * console's GitHub host (run links).
 */
export function dispatchConflict(projection: Projection, dispatchId: string, host: string): ConflictView | null {
  const group = projection.dispatch(dispatchId);
  if (group === undefined || group.conflict === null) return null;
  const { runs, unnamed, terminal } = group.conflict;
  const done = new Set(terminal);
  const repository = projection.repository;
  const candidates = runs.map((runId) => ({ runId, runUrl: runUrl(host, repository, runId), terminal: done.has(runId) }));
  const status = group.released ? 'released' : conflictRecorded(group) ? 'open' : 'resolved';
  const wayOut: string[] = [];
  if (status === 'open') {
    wayOut.push(`An administrator binds one candidate: fairway reconcile --dispatch-id ${dispatchId} --resolve-conflict RUN_ID (the group then follows that run and is released only on its exact terminal evidence).`);
    const open = candidates.filter((c) => !c.terminal).map((c) => c.runId);
    wayOut.push(unnamed > 0
      ? `The receipt could not name ${unnamed} candidate run(s), so the terminal exit is closed: only the administrator's resolution is left.`
      : `Or fairway reconcile --dispatch-id ${dispatchId} releases the group once GitHub reports every candidate run completed${open.length > 0 ? ` (still without terminal evidence: ${open.join(', ')})` : ''}.`);
  }
  return {
    dispatchId,
    code: 'run_binding_conflict',
    status,
    boundRunId: status === 'resolved' ? (group.run as { run_id?: string } | null)?.run_id ?? null : null,
    candidates,
    unnamed,
    wayOut,
  };
}

/** The recorded conflicts of the given groups, in order (groups without one are skipped). */
export function dispatchConflicts(projection: Projection, dispatchIds: readonly string[], host: string): ConflictView[] {
  return dispatchIds.flatMap((id) => dispatchConflict(projection, id, host) ?? []);
}
