/**
 * Publication of checked intents through the one checked publisher (spec
 * 7.7): the trusted actor for the snapshot's role, and one builder call per
 * request kind, shared with the CLI (`submitOrExisting`, `dispatchNextRequest`,
 * `finishRequest`, `bootstrapRequest`). Nothing here selects Work: the
 * packer re-selects fresh winners on the live queue (late binding, 7.12).
 */
import { fail } from '../../engine/errors.ts';
import type { ClaimScope } from '../../engine/intents/scope.ts';
import type { JsonObject } from '../../engine/json.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { bootstrapRequest, dispatchNextRequest, finishRequest, submitOrExisting, type SubmitNode } from '../../engine/requests/operations.ts';
import type { PackResult } from '../../engine/scheduler/pack.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { bootstrapPolicy, requireRoutesFor } from '../config/worker-routes.ts';
import type { Publisher, PublishOutcome } from '../publisher/publisher.ts';
import { grantEvent, packEvent } from '../debug/queue-events.ts';
import { debugEvent } from '../debug/log.ts';

const BOOTSTRAP_EPOCH = 'epoch-1';
/** Assignment byte bound of a processed dispatch_next (the packer also applies the Policy's). */
export const DISPATCH_MAX_BYTES = 48 * 1024;

/** The queue repository: the ledger's, or (only when bootstrapping) the configured one. */
export function repositoryOf(projection: Projection | null, fallback: string): string {
  return projection?.repository ?? fallback;
}

export function originActor(role: 'producer' | 'dispatcher', principal: string, repository: string): Actor {
  return { role, principal, repository };
}

/**
 * The worker actor of one Claim: the dispatch's frozen worker principal and
 * workflow, the durably bound run (original attempt), and the Claim scope.
 */
export function workerActor(projection: Projection, scope: ClaimScope, runId: string): Actor {
  const group = projection.dispatch(scope.dispatch_id);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${scope.dispatch_id} does not exist`);
  return {
    role: 'worker',
    principal: group.profile.principal as string,
    repository: projection.repository ?? '',
    workflow: group.profile.workflow as string,
    run_id: runId,
    run_attempt: 1,
    dispatch_id: scope.dispatch_id,
    claim_handle: scope.claim_handle,
  };
}

export interface SubmitPlan {
  requestId: string;
  actor: Actor;
  /** Resolves the nodes against a Policy (the live one, or the bootstrap one). */
  resolve: (policy: JsonObject | null) => { graphId: string; nodes: SubmitNode[] };
  /** Present when this submission may initialize an absent queue (producers and dispatchers). */
  bootstrap?: { repository: string; principal: string };
}

export function publishSubmit(publisher: Publisher, plan: SubmitPlan): Promise<PublishOutcome> {
  return publisher.publish({
    requestId: plan.requestId,
    actor: plan.actor,
    prepare: (projection, ids) => {
      const { graphId, nodes } = plan.resolve(projection.policy);
      // Exact resubmissions of admitted nodes are the existing records (`already_admitted`, no write).
      return submitOrExisting(projection, nodes, { graphId, at: ids.at, actor: plan.actor });
    },
    ...(plan.bootstrap === undefined ? {} : {
      bootstrap: async (ids) => {
        // The same verified routes as the CLI's bootstrap (spec 7.1): no verified route the
        // nodes need is worker_route_unavailable, and nothing is published.
        const { policy, routes } = await bootstrapPolicy(publisher.store, plan.bootstrap!);
        const { graphId, nodes } = plan.resolve(policy);
        requireRoutesFor(routes, nodes);
        return bootstrapRequest(policy, BOOTSTRAP_EPOCH, nodes, { graphId, at: ids.at });
      },
    }),
  });
}

export interface DispatchPlan {
  requestId: string;
  actor: Actor;
  pool: string;
  max_claims: number;
  max_dispatches: number;
}

export async function publishDispatch(publisher: Publisher, plan: DispatchPlan): Promise<{ outcome: PublishOutcome; pack: PackResult | undefined }> {
  let pack: PackResult | undefined;
  const input = { pool: plan.pool, max_claims: plan.max_claims, max_dispatches: plan.max_dispatches, max_bytes: DISPATCH_MAX_BYTES };
  const outcome = await publisher.publish({
    requestId: plan.requestId,
    actor: plan.actor,
    prepare: (projection, ids) => {
      const built = dispatchNextRequest(projection, input, ids, ids.at);
      pack = built.plan;
      packEvent(built.plan);
      if (built.operations.length > 0) return built;
      const reason = built.plan.stopReason;
      return { kind: built.kind, parameters: built.parameters, noWrite: { code: reason, message: `no grant: ${reason}`, detail: built.plan.next.explanation } };
    },
  });
  grantEvent(outcome, pack);
  return { outcome, pack: outcome.status === 'committed' ? pack : undefined };
}

export async function publishFinish(publisher: Publisher, input: { requestId: string; actor: Actor; scope: ClaimScope; outcome: 'completed' | 'cancelled' }): Promise<PublishOutcome> {
  const parameters = { dispatch_id: input.scope.dispatch_id, claim_handle: input.scope.claim_handle, outcome: input.outcome };
  const outcome = await publisher.publish({
    requestId: input.requestId,
    actor: input.actor,
    prepare: (projection, ids) => finishRequest(projection, parameters, ids.at),
  });
  debugEvent('claims', 'finish', { completed: input.outcome === 'completed', status: outcome.status });
  return outcome;
}

/** The commit a publication produced or found. */
export function commitOf(outcome: PublishOutcome): string | null {
  if (outcome.status === 'committed') return outcome.commit.id;
  if (outcome.status === 'request_replayed') return outcome.commitId;
  return null;
}
