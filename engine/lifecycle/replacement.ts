/**
 * Replacement admission after a DeliveryFailure (spec 7.15 "Replacement after delivery
 * failure"): a new node with a new (graph_id, node_key), a validated `replacement_of`
 * reference and a trusted remediation disposition. It inherits the failed node's pool,
 * profile, priority and fairness key (no new entitlement) and gets a new FIFO position;
 * old descendants keep their edges to the failed node.
 */
import { fail } from '../errors.ts';
import { isIdentity } from '../identity/index.ts';
import type { JsonObject } from '../json.ts';
import { submitRequest, type BuiltRequest, type SubmitNode } from '../requests/operations.ts';
import type { QueueOperation } from '../schema/index.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

export interface ReplacementInput {
  failedWorkId: string;
  node_key: string;
  graph_id?: string;
  payload: JsonObject;
  depends_on?: SubmitNode['depends_on'];
  disposition: 'idempotent' | 'compensated' | 'inspection';
  /** Identity of the trusted remediation evidence (never an agent assertion). */
  evidence: string;
}

export function replacementRequest(source: QueueSource, input: ReplacementInput, at: number): BuiltRequest {
  const state = stateOf(source);
  const failed = state.works.get(input.failedWorkId);
  if (failed === undefined || failed.barrier !== 'failed') fail('replacement_invalid', `Work ${input.failedWorkId} is not delivery-failed`);
  if (!isIdentity(input.evidence)) fail('replacement_invalid', 'the remediation evidence must be an identity');
  const node: SubmitNode = {
    node_key: input.node_key,
    graph_id: input.graph_id ?? failed.graphId,
    payload: input.payload,
    pool: failed.pool,
    worker_profile: failed.workerProfile,
    priority: failed.priority,
    fairness_key: failed.fairnessKey,
    ...(input.depends_on === undefined ? {} : { depends_on: input.depends_on }),
  };
  const built = submitRequest(state, [node], { graphId: node.graph_id!, at });
  const work = { ...(built.operations[0] as unknown as JsonObject), replacement_of: { work_id: failed.workId, disposition: input.disposition, evidence: input.evidence } };
  return { kind: 'submit', parameters: { nodes: [work] }, operations: [work as unknown as QueueOperation] };
}
