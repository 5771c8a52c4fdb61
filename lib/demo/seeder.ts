/**
 * Publishes the demo's requests one by one, each at its own fixed decision time: through the
 * real Publisher (the one checked publication path; the console's demo repository) or into
 * an in-memory LedgerWriter (`fairway demo`), which validates each commit by replay the same way.
 */
import { ProtocolError } from '../../engine/errors.ts';
import { candidateCommitId } from '../../engine/identity/index.ts';
import type { JsonObject } from '../../engine/json.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { dispatchNextRequest, type BuiltRequest, type DispatchNextInput } from '../../engine/requests/operations.ts';
import { LedgerWriter } from '../../engine/requests/writer.ts';
import type { Actor, QueueCommit } from '../../engine/schema/index.ts';
import type { CandidateCommit, Publisher } from '../publisher/publisher.ts';

export interface Grant {
  commit: QueueCommit;
  /** Claims in grant order. */
  claims: Array<{ work_id: string; claim_id: string; dispatch_id: string; handle: string }>;
}

/** One granted Claim and why the scheduler chose it (the packer's explanation). */
export interface GrantDecision {
  request_id: string;
  node_key: string;
  fairness_key: string;
  priority: number;
  reason: string;
}

export class Seeder {
  /** Requests published so far. */
  count = 0;
  /** Every granted Claim in grant order. */
  readonly decisions: GrantDecision[] = [];
  private projection: Projection | null = null;

  constructor(private readonly sink: Publisher | LedgerWriter) {}

  /** The queue after the last publication. */
  get current(): Projection {
    if (this.projection === null) throw new ProtocolError('demo_not_seeded', 'nothing published yet');
    return this.projection;
  }

  async publish(id: string, actor: Actor, at: number, build: (projection: Projection, candidate: CandidateCommit) => BuiltRequest, bootstrap?: BuiltRequest): Promise<QueueCommit> {
    return (await this.published(id, actor, at, build, bootstrap)).commit;
  }

  /** Publishes one request; answers its commit and the request as built for it. */
  private async published<R extends BuiltRequest>(id: string, actor: Actor, at: number, build: (projection: Projection, candidate: CandidateCommit) => R, bootstrap?: BuiltRequest): Promise<{ commit: QueueCommit; built: R | BuiltRequest }> {
    if (this.sink instanceof LedgerWriter) {
      const w = this.sink;
      const built = build(w.projection, { requestId: id, commitId: candidateCommitId(w.projection.tip, id), at });
      const commit = w.publish(id, actor, at, built);
      this.projection = w.projection;
      this.count += 1;
      return { commit, built };
    }
    const outcome = await this.sink.publish({
      requestId: id,
      actor,
      now: () => at,
      prepare: build,
      ...(bootstrap === undefined ? {} : { bootstrap: () => bootstrap }),
    });
    if (outcome.status !== 'committed') throw new ProtocolError('demo_seed_failed', `demo request ${id} was not committed (${outcome.status})`);
    this.projection = outcome.projection;
    this.count += 1;
    return { commit: outcome.commit, built: outcome.prepared };
  }

  async dispatchNext(id: string, actor: Actor, at: number, input: DispatchNextInput): Promise<Grant> {
    const { commit, built } = await this.published(id, actor, at, (projection, candidate) => {
      const grant = dispatchNextRequest(projection, input, candidate, candidate.at);
      if (grant.operations.length === 0) throw new ProtocolError('demo_seed_failed', `demo grant ${id} found nothing to grant (${grant.plan.stopReason})`);
      return grant;
    });
    const { plan } = built as ReturnType<typeof dispatchNextRequest>;
    this.decisions.push(...plan.explanations.slice(0, plan.claims.length).flatMap((e) =>
      e.work === null ? [] : [{ request_id: id, node_key: e.work.node_key, fairness_key: e.work.fairness_key, priority: e.work.priority, reason: e.reason }]));
    const claims = commit.operations
      .filter((op) => op.kind === 'Claim')
      .map((op) => {
        const c = op as unknown as JsonObject;
        return { work_id: String(c.work_id), claim_id: String(c.claim_id), dispatch_id: String(c.dispatch_id), handle: String(c.handle) };
      });
    return { commit, claims };
  }
}
