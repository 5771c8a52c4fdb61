/**
 * What a committed request did (operator reference "explain --request-id";
 * TUI "uncertain acknowledgments remain visible for inspection with explain
 * --request-id"): its commit, decision time, actor role, and each operation
 * summarised in words, with Work named by graph and node key. Read-only and
 * pure: it reads the commit's own text from the validated projection.
 */
import type { Projection } from '../replay/index.ts';
import { parseQueueCommit, type QueueOperation } from '../schema/index.ts';

export interface OperationSummary {
  index: number;
  kind: string;
  /** One line in words. */
  summary: string;
  work_id?: string;
  claim_id?: string;
  dispatch_id?: string;
}

export interface RequestDescription {
  request_id: string;
  kind: string;
  commit_id: string;
  /** Decision time (ms) of the commit. */
  as_of: number;
  actor: { role: string; principal: string };
  policy_epoch: string | null;
  /** False when the commit lies before the ledger's checkpoint root: only its receipt is kept. */
  operations_available: boolean;
  operations: OperationSummary[];
  /** One sentence over all operations. */
  summary: string;
}

const q = (s: string): string => JSON.stringify(s);

function workName(p: Projection, id: string): string {
  const w = p.work(id);
  return w === undefined ? `Work ${id}` : `Work ${w.graphId}/${w.nodeKey}`;
}

function describe(p: Projection, op: QueueOperation): Omit<OperationSummary, 'index'> {
  const o = op as unknown as Record<string, unknown>;
  const v = (key: string): string => (typeof o[key] === 'string' ? o[key] : JSON.stringify(o[key] ?? null));
  const kind = v('kind');
  const reason = o.reason === undefined ? '' : ` (reason ${v('reason')})`;
  switch (kind) {
    case 'Work': {
      const r = o.replacement_of as { work_id?: string } | undefined;
      return { kind, work_id: v('work_id'), summary: `admitted Work ${v('graph_id')}/${v('node_key')} in pool ${v('pool')}, priority ${v('priority')}, fairness key ${q(v('fairness_key'))}, ${(o.depends_on as unknown[] | undefined)?.length ?? 0} dependencies${r?.work_id ? `, replacing ${workName(p, r.work_id)}` : ''}` };
    }
    case 'WorkCancellation':
      return { kind, work_id: v('work_id'), summary: `cancelled ${workName(p, v('work_id'))}${o.claim_id === undefined ? '' : ` fenced on Claim ${v('claim_id')}`}${reason}` };
    case 'WorkPriority':
      return { kind, work_id: v('work_id'), summary: `changed the priority of ${workName(p, v('work_id'))} from ${v('expected_priority')} to ${v('priority')}${reason}` };
    case 'Control':
      return { kind, summary: `set control ${v('control')} to ${JSON.stringify(o.value ?? null)}${reason}` };
    case 'Policy':
      return { kind, summary: `installed Policy epoch ${q(v('epoch'))}` };
    case 'Claim':
      return { kind, work_id: v('work_id'), claim_id: v('claim_id'), dispatch_id: v('dispatch_id'), summary: `granted Claim ${v('claim_id')} on ${workName(p, v('work_id'))} as ${v('handle')} of dispatch ${v('dispatch_id')}` };
    case 'ClaimCancellation':
      return { kind, work_id: v('work_id'), claim_id: v('claim_id'), summary: `cancelled Claim ${v('claim_id')} on ${workName(p, v('work_id'))}, retry not before ${v('retry_not_before')}${reason}` };
    case 'Completion':
      return { kind, work_id: v('work_id'), claim_id: v('claim_id'), dispatch_id: v('dispatch_id'), summary: `completed Claim ${v('claim_id')} on ${workName(p, v('work_id'))} (run ${v('run_id')}, attempt ${v('run_attempt')})` };
    case 'Dispatch': {
      const run = o.run as { run_id?: string } | undefined;
      return { kind, dispatch_id: v('dispatch_id'), summary: `marked dispatch ${v('dispatch_id')} ${v('state')}${run?.run_id ? ` (run ${run.run_id})` : ''}${reason}` };
    }
    case 'Release': {
      const ev = o.evidence as { kind?: string; conclusion?: string } | undefined;
      return { kind, dispatch_id: v('dispatch_id'), summary: `released the native reservation of dispatch ${v('dispatch_id')} on ${ev?.kind ?? 'unknown'} evidence${ev?.conclusion ? ` (${ev.conclusion})` : ''}` };
    }
    case 'Result':
      return { kind, work_id: v('work_id'), claim_id: v('claim_id'), summary: `recorded the verified Result of ${workName(p, v('work_id'))} (Claim ${v('claim_id')})` };
    case 'DeliveryFailure':
      return { kind, work_id: v('work_id'), claim_id: v('claim_id'), summary: `recorded a delivery failure of ${workName(p, v('work_id'))} (Claim ${v('claim_id')}, effects ${v('disposition')})${reason}` };
    case 'Observation': {
      const r = o.resource as { kind?: string; repository?: string; number?: string } | undefined;
      return { kind, summary: `observed ${r?.kind ?? 'resource'} ${r?.repository ?? ''}#${r?.number ?? '?'} ${v('condition')}: ${v('state')} (observation ${v('observation_id')})` };
    }
    case 'Checkpoint':
      return { kind, summary: `compacted the ledger into a checkpoint of prior tip ${v('prior_tip')} (Git ${v('prior_git_sha')})` };
    case 'Deployment':
      return { kind, summary: `deployment of pool ${v('pool')} profile ${v('worker_profile')}${reason}` };
    default:
      return { kind, summary: `${kind} operation` };
  }
}

function sentence(ops: readonly OperationSummary[]): string {
  if (ops.length === 0) return 'no operations';
  const counts = new Map<string, number>();
  for (const op of ops) counts.set(op.kind, (counts.get(op.kind) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
}

/** The committed request `requestId`, or undefined when no such request is committed. */
export function describeRequest(projection: Projection, requestId: string): RequestDescription | undefined {
  const request = projection.request(requestId);
  if (request === undefined) return undefined;
  const actor = { role: String(request.actor.role ?? ''), principal: String(request.actor.principal ?? '') };
  const text = projection.commitText(request.commitId);
  if (text === undefined) {
    const prior = projection.checkpoint?.priorGitSha;
    return {
      request_id: requestId, kind: request.kind, commit_id: request.commitId, as_of: request.at, actor, policy_epoch: null,
      operations_available: false, operations: [],
      summary: `committed in ${request.commitId}, before this ledger's checkpoint: its operations were compacted away (only the request receipt is kept)${prior === undefined ? '' : `; the full ledger is at Git commit ${prior}`}`,
    };
  }
  const commit = parseQueueCommit(JSON.parse(text));
  const operations = commit.operations.map((op, index) => ({ index, ...describe(projection, op) }));
  return {
    request_id: requestId, kind: request.kind, commit_id: request.commitId, as_of: request.at, actor, policy_epoch: commit.policy_epoch,
    operations_available: true, operations, summary: sentence(operations),
  };
}
