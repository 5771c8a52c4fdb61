/**
 * The request publishers: one per request a surface publishes (submit, dispatch_next,
 * finish, observe, lifecycle transitions; administrator actions in `admin.ts`), each a
 * builder call on the fresh projection of every attempt through the one checked
 * publisher (spec 7.7). The CLI, the TUI, the console, the MCP intent processor and the
 * GitHub lifecycle adapters call these; none writes its own `prepare`. Each returns the
 * publisher's uniform outcome, which carries what was prepared (a grant's packer run).
 */
import { canonicalize } from '../../engine/codec/index.ts';
import { fail, isProtocolError } from '../../engine/errors.ts';
import { dispatchNextWithObservations } from '../../engine/lifecycle/grant.ts';
import { currentObservations } from '../../engine/lifecycle/observations.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import type { Projection } from '../../engine/replay/index.ts';
import {
  bootstrapRequest, finishRequest, operationsRequest, submitOrExisting,
  type BuiltRequest, type DispatchNextInput, type SubmitNode,
} from '../../engine/requests/operations.ts';
import type { PackResult } from '../../engine/scheduler/pack.ts';
import { bootstrapPolicy, requireRoutesFor } from '../config/worker-routes.ts';
import type { EventMeta } from '../debug/events.ts';
import { debugEvent } from '../debug/log.ts';
import { grantEvent, packEvent } from '../debug/queue-events.ts';
import { historicalGrantPlan } from './history.ts';
import type { CandidateCommit, NoWrite, Prepared, PublishInput, PublishingActor, PublishOutcome, Publisher } from './publisher.ts';

/** What every request publication names: its stable request id, its actor and (optionally) its decision clock. */
export interface RequestOrigin {
  requestId: string;
  actor: PublishingActor;
  now?: () => number;
}

const preparing = new WeakSet<object>();

/**
 * One request through the publisher. An error its builder throws is remembered, so a surface
 * can tell "refused while preparing: nothing was written" (`thrownWhilePreparing`) from an
 * error after a write was attempted.
 */
export function publishRequest<P extends Prepared, B extends BuiltRequest = never>(publisher: Publisher, input: PublishInput<P, B>): Promise<PublishOutcome<P, B>> {
  return publisher.publish({
    ...input,
    prepare: (projection: Projection, candidate: CandidateCommit) => {
      try {
        return input.prepare(projection, candidate);
      } catch (e) {
        if (typeof e === 'object' && e !== null) preparing.add(e);
        throw e;
      }
    },
  });
}

/** True when `e` was thrown by a request's builder: the request was refused before anything was written. */
export function thrownWhilePreparing(e: unknown): boolean {
  return typeof e === 'object' && e !== null && preparing.has(e);
}

const BOOTSTRAP_EPOCH = 'epoch-1';

export interface SubmitSpec extends RequestOrigin {
  /** The nodes and their graph against a Policy (the live one, or the bootstrap's). */
  resolve: (policy: JsonObject | null) => { graphId: string; nodes: SubmitNode[] };
  /**
   * Present when this submission may initialize an absent queue (spec 7.1: producers and
   * dispatchers): the queue repository the genesis Actor names.
   */
  bootstrap?: { repository: string | (() => Promise<string> | string) };
}

/**
 * `submit`: admits the nodes, or answers `already_admitted` (no write) when every node exists
 * with exactly this definition. On an absent queue with `bootstrap`, the genesis: the Policy
 * with the worker routes verified at the store's default revision (no verified route for a
 * node's profile is `worker_route_unavailable`, and nothing is published), then the Work.
 */
export function publishSubmit(publisher: Publisher, spec: SubmitSpec) {
  return publishRequest(publisher, {
    requestId: spec.requestId,
    actor: spec.actor,
    ...(spec.now === undefined ? {} : { now: spec.now }),
    prepare: (projection, candidate) => {
      const { graphId, nodes } = spec.resolve(projection.policy);
      return submitOrExisting(projection, nodes, { graphId, at: candidate.at, actor: spec.actor });
    },
    ...(spec.bootstrap === undefined ? {} : {
      bootstrapRepository: spec.bootstrap.repository,
      bootstrap: async (candidate: CandidateCommit, actor: { repository: string; principal: string }) => {
        const { policy, routes } = await bootstrapPolicy(publisher.store, { repository: actor.repository, principal: actor.principal });
        const { graphId, nodes } = spec.resolve(policy);
        requireRoutesFor(routes, nodes);
        return bootstrapRequest(policy, BOOTSTRAP_EPOCH, nodes, { graphId, at: candidate.at });
      },
    }),
  });
}

export interface DispatchSpec extends RequestOrigin {
  input: DispatchNextInput;
  /**
   * Fresh trusted Observations to commit ahead of the Claims (spec 7.16), read before
   * publishing (lib/github/observer.ts); the packer sees them applied.
   */
  observations?: readonly JsonObject[];
  /**
   * A per-run dispatch budget (the intent processor's, spec 7.12): `total` groups, of which
   * `reserved` reads how many are spent on each attempt's projection. A request is clamped to
   * what is left, and nothing left is `dispatch_budget_blocked`. Checked inside the
   * compare-and-swap, so two processing runs of one activation cannot both spend the last group.
   */
  budget?: { total: number; reserved: (projection: Projection) => number };
}

/** A dispatch_next as prepared: its request and packer run, or the no-grant (nothing written). */
export type DispatchPrepared = BuiltRequest & { plan: PackResult };
export type DispatchOutcome = PublishOutcome<DispatchPrepared | (DispatchPrepared & { noWrite: { code: string; message: string; detail: unknown } }), never>;

/**
 * `dispatch_next`: the next fair prefix of Claims with their reservations. Nothing to grant is
 * a no-write whose code is the packer's stop reason and whose detail its explanation;
 * `prepared.plan` is the packer run either way.
 */
export async function publishDispatch(publisher: Publisher, spec: DispatchSpec): Promise<DispatchOutcome> {
  const observations = spec.observations ?? [];
  const outcome = await publishRequest(publisher, {
    requestId: spec.requestId,
    actor: spec.actor,
    ...(spec.now === undefined ? {} : { now: spec.now }),
    prepare: (projection, candidate) => {
      let input = spec.input;
      if (spec.budget !== undefined) {
        const remaining = spec.budget.total - spec.budget.reserved(projection);
        if (remaining <= 0) fail('dispatch_budget_blocked', `this run already reserved its ${spec.budget.total} dispatch group(s)`);
        if (remaining < input.max_dispatches) input = { ...input, max_dispatches: remaining };
      }
      const built = dispatchNextWithObservations(projection, input, candidate, candidate.at, observations);
      packEvent(built.plan);
      if (built.plan.claims.length > 0) return built;
      const reason = built.plan.stopReason;
      return { ...built, noWrite: { code: reason, message: `no grant: ${reason}`, detail: built.plan.next.explanation } };
    },
  });
  grantEvent(outcome, outcome.prepared?.plan);
  return outcome;
}

/**
 * The packer run of a published grant: this publication's, or for a replay the committed
 * grant's own, from pre-compaction history if need be (undefined: compacted away).
 */
export function grantOf(publisher: Publisher, outcome: Exclude<DispatchOutcome, { status: 'no_write' }>, requestId: string): Promise<PackResult | undefined> | PackResult {
  return outcome.replayed ? historicalGrantPlan(publisher.store, outcome.projection, requestId) : outcome.prepared.plan;
}

export interface FinishSpec extends RequestOrigin {
  finish: { dispatch_id: string; claim_handle: string; outcome: 'completed' | 'cancelled' };
}

/** `finish` of one Claim (spec 7.14): its Completion, or its ClaimCancellation (and WorkCancellation when attempts are exhausted). */
export async function publishFinish(publisher: Publisher, spec: FinishSpec): Promise<PublishOutcome> {
  const outcome = await publishRequest(publisher, {
    requestId: spec.requestId,
    actor: spec.actor,
    ...(spec.now === undefined ? {} : { now: spec.now }),
    prepare: (projection, candidate) => finishRequest(projection, spec.finish, candidate.at),
  });
  debugEvent('claims', 'finish', { completed: spec.finish.outcome === 'completed', status: outcome.status });
  return outcome;
}

export interface ObservationsSpec extends RequestOrigin {
  observations: readonly JsonObject[];
  /**
   * Operations computed from an earlier read: each attempt recomputes them on its projection
   * (`read`), and when they differ nothing is written (`changed`, a no-write).
   */
  recheck?: { read: (projection: Projection) => readonly JsonObject[]; changed: NoWrite };
}

/** `observe`: trusted records exactly as read (Observations, spec 7.16; Issue bindings). */
export function publishObservations(publisher: Publisher, spec: ObservationsSpec): Promise<PublishOutcome> {
  const recorded = canonicalize(spec.observations as unknown as JsonValue);
  return publishRequest(publisher, {
    requestId: spec.requestId,
    actor: spec.actor,
    ...(spec.now === undefined ? {} : { now: spec.now }),
    prepare: (projection): Prepared => {
      const now = spec.recheck?.read(projection);
      if (now !== undefined && canonicalize(now as unknown as JsonValue) !== recorded) {
        return { kind: 'observe', parameters: { operations: [...now] }, noWrite: spec.recheck!.changed };
      }
      // A read a newer recorded one supersedes is left out (engine/lifecycle/observations.ts).
      const current = currentObservations(projection, spec.observations);
      if (current.length === 0) return { kind: 'observe', parameters: { operations: [...spec.observations] }, noWrite: { code: 'observations_superseded', message: 'every observation was superseded by a newer recorded read of its gate' } };
      return operationsRequest('observe', current);
    },
  });
}

export type TransitionOutcome =
  | { status: 'committed' | 'replayed'; requestId: string; commitId: string; projection: Projection }
  | { status: 'skipped'; requestId: string; code: string; message: string };

export interface TransitionOptions {
  /** Builder codes that mean "already made": a `skipped` outcome instead of a failure. */
  tolerate?: readonly string[];
  now?: () => number;
  /** The group state this transition records (debug `dispatch transition`). */
  state?: EventMeta<'dispatch', 'transition'>['state'];
  /** The request id is a caller's (`--request-id`), not derived from the transition (publisher `derivedId`); default false. */
  callerId?: boolean;
}

/**
 * One lifecycle transition under its stable request id. A builder that finds the transition
 * already made (the group was released, bound or started meanwhile) throws a ProtocolError;
 * tolerated codes become `skipped`, so every recovery step is safe to repeat.
 */
export async function publishTransition(
  publisher: Publisher,
  requestId: string,
  actor: PublishingActor,
  build: (projection: Projection, at: number) => BuiltRequest,
  options: TransitionOptions = {},
): Promise<TransitionOutcome> {
  const outcome = await transitionOnce(publisher, requestId, actor, build, options);
  if (options.state !== undefined) debugEvent('dispatch', 'transition', { state: options.state, status: outcome.status });
  return outcome;
}

async function transitionOnce(
  publisher: Publisher,
  requestId: string,
  actor: PublishingActor,
  build: (projection: Projection, at: number) => BuiltRequest,
  options: TransitionOptions,
): Promise<TransitionOutcome> {
  try {
    const outcome = await publishRequest(publisher, {
      requestId,
      actor,
      prepare: (projection, candidate) => build(projection, candidate.at),
      derivedId: options.callerId !== true,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    return { status: outcome.replayed ? 'replayed' : 'committed', requestId, commitId: outcome.commitId, projection: outcome.projection };
  } catch (e) {
    if (isProtocolError(e) && (options.tolerate ?? []).includes(e.code)) return { status: 'skipped', requestId, code: e.code, message: e.message };
    throw e;
  }
}
