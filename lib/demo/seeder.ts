/**
 * Publishes the demo's requests one by one through the real Publisher (the
 * one checked publication path), each at its own fixed decision time.
 */
import { ProtocolError } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import type { ReplayState } from '../../engine/replay/state.ts';
import { dispatchNextRequest, type BuiltRequest, type DispatchNextInput } from '../../engine/requests/operations.ts';
import type { Actor, QueueCommit } from '../../engine/schema/index.ts';
import type { Publisher, RequestIds } from '../publisher/publisher.ts';

export interface Grant {
  commit: QueueCommit;
  /** Claims in grant order. */
  claims: Array<{ work_id: string; claim_id: string; dispatch_id: string; handle: string }>;
}

export class Seeder {
  /** Requests published so far. */
  count = 0;
  private state: ReplayState | null = null;

  constructor(private readonly publisher: Publisher) {}

  /** The replay state after the last publication. */
  get current(): ReplayState {
    if (this.state === null) throw new ProtocolError('demo_not_seeded', 'nothing published yet');
    return this.state;
  }

  async publish(id: string, actor: Actor, at: number, build: (state: ReplayState, ids: RequestIds) => BuiltRequest, bootstrap?: BuiltRequest): Promise<QueueCommit> {
    const outcome = await this.publisher.publish({
      requestId: id,
      actor,
      now: () => at,
      prepare: (projection, ids) => build(projection.state, ids),
      ...(bootstrap === undefined ? {} : { bootstrap: () => bootstrap }),
    });
    if (outcome.status !== 'committed') throw new ProtocolError('demo_seed_failed', `demo request ${id} was not committed (${outcome.status})`);
    this.state = outcome.projection.state;
    this.count += 1;
    return outcome.commit;
  }

  async dispatchNext(id: string, actor: Actor, at: number, input: DispatchNextInput): Promise<Grant> {
    const commit = await this.publish(id, actor, at, (state, ids) => {
      const built = dispatchNextRequest(state, input, { requestId: ids.requestId, commitId: ids.commitId }, ids.at);
      if (built.operations.length === 0) throw new ProtocolError('demo_seed_failed', `demo grant ${id} found nothing to grant (${built.plan.stopReason})`);
      return built;
    });
    const claims = commit.operations
      .filter((op) => op.kind === 'Claim')
      .map((op) => {
        const c = op as unknown as JsonObject;
        return { work_id: String(c.work_id), claim_id: String(c.claim_id), dispatch_id: String(c.dispatch_id), handle: String(c.handle) };
      });
    return { commit, claims };
  }
}
