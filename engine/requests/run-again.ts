/**
 * "Run it again" (docs/console.md "Run it again"): a new submission pre-filled from a cancelled
 * or delivery-failed Work, never a rewrite of history. The new node copies
 * the old one's payload, pool, worker profile, priority (as admitted),
 * fairness key and dependencies under a new node key in the same graph; for
 * a delivery-failed Work it is a replacement (spec 7.15: `replacement_of`
 * names the failed node with a remediation disposition and evidence, and
 * inherits its pool, priority and fairness key). The old Work keeps its
 * history, charges and terminal state.
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { WorkRecord } from '../state/state.ts';
import { submitRequest, type SubmitBuilt, type SubmitNode } from './operations.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

export type RunAgainKind = 'replacement' | 'resubmission';

/** How a Work may be run again: a replacement (delivery failed), a new submission (cancelled), or not at all. */
export function runAgainKind(work: WorkRecord): RunAgainKind | null {
  if (work.state === 'completed' && work.barrier === 'failed') return 'replacement';
  if (work.state === 'cancelled') return 'resubmission';
  return null;
}

/** The first free `<node>-rerun`, `<node>-rerun-2`, … of the Work's graph. */
export function rerunNodeKey(source: QueueSource, work: WorkRecord): string {
  const state = stateOf(source);
  const taken = new Set<string>();
  for (const w of state.works.values()) if (w.graphId === work.graphId) taken.add(w.nodeKey);
  const base = `${work.nodeKey.replace(/-rerun(?:-\d+)?$/, '')}-rerun`;
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** The old Work's definition as a submission node under `nodeKey`. */
export function runAgainNode(source: QueueSource, work: WorkRecord, nodeKey: string): SubmitNode {
  const state = stateOf(source);
  const d = work.definition as { payload?: JsonObject; depends_on?: Array<{ kind: string; work_id?: string; condition?: string; resource?: JsonObject }>; execution_ref?: string };
  const depends: NonNullable<SubmitNode['depends_on']> = [];
  for (const edge of d.depends_on ?? []) {
    if (edge.kind === 'work') {
      const predecessor = state.works.get(edge.work_id ?? '');
      if (predecessor === undefined) fail('unknown_work', `predecessor ${edge.work_id} of ${work.nodeKey} is not in the ledger`);
      depends.push({ kind: 'work', node_key: predecessor.nodeKey });
    } else {
      depends.push({ kind: edge.kind as 'issue' | 'pull_request', condition: edge.condition!, resource: edge.resource! });
    }
  }
  return {
    node_key: nodeKey,
    payload: d.payload ?? {},
    pool: work.pool,
    worker_profile: work.workerProfile,
    priority: work.priority,
    fairness_key: work.fairnessKey,
    ...(depends.length === 0 ? {} : { depends_on: depends }),
    ...(typeof d.execution_ref === 'string' ? { execution_ref: d.execution_ref } : {}),
  };
}

export interface RunAgainBody {
  work_id: string;
  node_key: string;
  /** Replacements: the remediation disposition (spec 7.15). */
  disposition?: 'idempotent' | 'compensated' | 'inspection';
  /** Replacements: the evidence id of the remediation review (the dialog's reason code). */
  reason: string;
}

/** The submit request that runs `body.work_id` again at `at`. */
export function runAgainRequest(source: QueueSource, body: RunAgainBody, at: number): SubmitBuilt {
  const state = stateOf(source);
  const work = state.works.get(body.work_id);
  if (work === undefined) fail('unknown_work', `Work ${body.work_id} is not admitted`);
  const kind = runAgainKind(work);
  if (kind === null) fail('work_not_rerunnable', `Work ${body.work_id} is ${work.state}${work.state === 'completed' ? ` (delivery ${work.barrier})` : ''}; only cancelled or delivery-failed Work can be run again`);
  if (kind === 'replacement' && body.disposition === undefined) fail('request_invalid', 'a replacement of a delivery-failed Work needs a remediation disposition (idempotent, compensated or inspection)');
  const built = submitRequest(state, [runAgainNode(state, work, body.node_key)], { graphId: work.graphId, at });
  if (built.existing.length > 0) fail('duplicate_node_key', `node key ${body.node_key} is already admitted in graph ${work.graphId}; choose another`);
  if (kind === 'replacement') {
    // The parameters name the same operation objects: the replacement reference is bound by the fingerprint too.
    (built.operations[0] as unknown as JsonObject).replacement_of = { work_id: work.workId, disposition: body.disposition!, evidence: body.reason };
  }
  return built;
}
