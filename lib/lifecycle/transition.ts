/**
 * Publishing one lifecycle transition through THE checked publisher (spec 7.7), under its
 * stable request id. A builder that finds the transition already made (e.g. the group was
 * released, bound or started meanwhile) throws a ProtocolError; listed codes become a
 * `skipped` outcome instead of a failure, so every recovery step is safe to repeat.
 */
import { isProtocolError } from '../../engine/errors.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { BuiltRequest } from '../../engine/requests/operations.ts';
import type { Actor } from '../../engine/schema/index.ts';
import type { EventMeta } from '../debug/events.ts';
import { debugEvent } from '../debug/log.ts';
import type { Publisher } from '../publisher/publisher.ts';

export type TransitionOutcome =
  | { status: 'committed' | 'replayed'; requestId: string; commitId: string; projection: Projection }
  | { status: 'skipped'; requestId: string; code: string; message: string };

export async function publishTransition(
  publisher: Publisher,
  requestId: string,
  actor: Actor,
  build: (projection: Projection, at: number) => BuiltRequest,
  options: { tolerate?: readonly string[]; now?: () => number; /** The group state this transition records (debug `dispatch transition`). */ state?: EventMeta<'dispatch', 'transition'>['state'] } = {},
): Promise<TransitionOutcome> {
  const outcome = await publishOnce(publisher, requestId, actor, build, options);
  if (options.state !== undefined) debugEvent('dispatch', 'transition', { state: options.state, status: outcome.status });
  return outcome;
}

async function publishOnce(
  publisher: Publisher,
  requestId: string,
  actor: Actor,
  build: (projection: Projection, at: number) => BuiltRequest,
  options: { tolerate?: readonly string[]; now?: () => number },
): Promise<TransitionOutcome> {
  try {
    const outcome = await publisher.publish({
      requestId,
      actor,
      prepare: (projection, ids) => build(projection, ids.at),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    if (outcome.status === 'committed') return { status: 'committed', requestId, commitId: outcome.commit.id, projection: outcome.projection };
    if (outcome.status === 'request_replayed') return { status: 'replayed', requestId, commitId: outcome.commitId, projection: outcome.projection };
    return { status: 'skipped', requestId, code: outcome.code, message: outcome.message };
  } catch (e) {
    if (isProtocolError(e) && (options.tolerate ?? []).includes(e.code)) return { status: 'skipped', requestId, code: e.code, message: e.message };
    throw e;
  }
}
