/**
 * Administrator actions through the one publisher (operator reference "Administrator
 * commands"): the engine's admin table builds each action's request on the fresh projection
 * of every attempt (engine/requests/admin-actions.ts). The CLI commands, the TUI's reviewed
 * actions and the console's `/api/admin/<action>` routes all publish here.
 */
import { adminRequest, type AdminAction, type AdminActionBody } from '../../engine/requests/admin-actions.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { BuiltRequest } from '../../engine/requests/operations.ts';
import { debugEvent } from '../debug/log.ts';
import type { Publisher, PublishOutcome } from './publisher.ts';
import { publishRequest, type RequestOrigin } from './requests.ts';

export interface AdminSpec<A extends AdminAction> extends RequestOrigin {
  action: A;
  /** The action's body, or the body on the projection it is built on (ids resolved there). */
  body: AdminActionBody<A> | ((projection: Projection) => AdminActionBody<A>);
  /**
   * A surface's own review of a new request (never of the retry of a committed one, which is
   * answered as replayed): around building it, e.g. the console refuses a no-op and checks
   * the operations against the preview the administrator reviewed.
   */
  review?: (projection: Projection, build: () => BuiltRequest) => BuiltRequest;
}

/** Publishes one administrator action; a refused action throws its builder's (or review's) error. */
export async function publishAdmin<A extends AdminAction>(publisher: Publisher, spec: AdminSpec<A>): Promise<PublishOutcome<BuiltRequest, never>> {
  const outcome = await publishRequest(publisher, {
    requestId: spec.requestId,
    actor: spec.actor,
    ...(spec.now === undefined ? {} : { now: spec.now }),
    prepare: (projection, candidate) => {
      const body = typeof spec.body === 'function' ? spec.body(projection) : spec.body;
      const build = (): BuiltRequest => {
        if (spec.action === 'cancel-claim') debugEvent('claims', 'cancel', { claims: (body as AdminActionBody<'cancel-claim'>).claim_ids.length });
        return adminRequest(spec.action, body, projection, candidate.at);
      };
      return spec.review === undefined || projection.request(spec.requestId) !== undefined ? build() : spec.review(projection, build);
    },
  });
  return outcome;
}
