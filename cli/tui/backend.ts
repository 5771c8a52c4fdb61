/**
 * The browser's edge: reads the queue from the same store flags as every
 * command (cli/source.ts) and publishes reviewed actions through the one
 * checked publisher as an administrator (the engine's admin table, as every surface).
 */
import { fail, internalError, isProtocolError } from '../../engine/errors.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { BuiltRequest } from '../../engine/requests/operations.ts';
import { publishAdmin } from '../../lib/publisher/admin.ts';
import { actorOf } from '../../lib/publisher/actor.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { thrownWhilePreparing } from '../../lib/publisher/requests.ts';
import type { LedgerStore } from '../../lib/store/types.ts';
import type { GlobalOptions } from '../context.ts';
import { UsageError } from '../output.ts';
import { principalOf, readSource, storeFor } from '../source.ts';
import { ADMIN_ACTION, type ActionPlan, type Authority } from './dialog.ts';
import { buildSnapshot, type Snapshot } from './model.ts';
import type { PublishResult } from './state.ts';

export interface TuiBackend {
  authority: Authority;
  load(watch: readonly string[]): Promise<Snapshot>;
  publish(plan: ActionPlan): Promise<PublishResult>;
}

function errorOf(e: unknown): { code: string; message: string } {
  if (isProtocolError(e)) return { code: e.code, message: e.message };
  if (e instanceof UsageError) return { code: e.code, message: e.message };
  return internalError(e);
}

/**
 * The review's precondition, checked on the projection the publication is built on (so under
 * its compare-and-swap): every Work target still has the state and priority the operator
 * reviewed. Else a grant or another priority change made the action stale (operator reference
 * "Keyboard browser and checked actions"): it is refused, never applied to what was not shown.
 */
function stillAsReviewed(plan: ActionPlan) {
  return (projection: Projection, build: () => BuiltRequest): BuiltRequest => {
    for (const [id, seen] of Object.entries(plan.reviewed ?? {})) {
      const w = projection.work(id);
      if (w !== undefined && (w.state !== seen.state || w.effectivePriority !== seen.priority)) {
        fail('preview_stale', `Work ${id} changed since the review (${seen.state} P${seen.priority}, now ${w.state} P${w.effectivePriority}); nothing was published: review it again`);
      }
    }
    return build();
  };
}

/** Publishes the reviewed plan as its administrator action (engine/requests/admin-actions.ts). */
function publishPlan(publisher: Publisher, plan: ActionPlan, principal: string) {
  const action = ADMIN_ACTION[plan.action];
  const { ids, reason, requestId } = plan;
  const actor = actorOf('administrator', principal);
  const review = stillAsReviewed(plan);
  if (action === 'cancel-claim') return publishAdmin(publisher, { requestId, actor, action, body: { claim_ids: ids, reason }, review });
  if (action === 'cancel-work') return publishAdmin(publisher, { requestId, actor, action, body: { work_ids: ids, reason }, review });
  return publishAdmin(publisher, { requestId, actor, action, body: { work_ids: ids, priority: plan.priority ?? 0, reason }, review });
}

/** Counts compare-and-swap attempts, so a failure can be told apart from an uncertain write. */
function counting(store: LedgerStore): { store: LedgerStore; writes: () => number } {
  let writes = 0;
  return {
    writes: () => writes,
    store: {
      label: store.label,
      read: () => store.read(),
      readDefaultBranchFile: (path) => store.readDefaultBranchFile(path),
      compareAndSwap: (expected, bytes, message) => {
        writes += 1;
        return store.compareAndSwap(expected, bytes, message);
      },
      ...(store.compareAndSwapParts !== undefined && {
        compareAndSwapParts: (expected: string | null, parts: readonly Uint8Array[], message: string) => {
          writes += 1;
          return store.compareAndSwapParts!(expected, parts, message);
        },
      }),
    },
  };
}

/** A backend for the global flags; `now` is the decision clock for snapshots. */
export function openBackend(g: GlobalOptions, now: () => number = Date.now): TuiBackend {
  const principal = principalOf(g);
  const store = storeFor(g);
  if (store.readOnly === true) {
    const source = readSource(g, store);
    return {
      authority: { principal, source: source.label, writable: false, basis: 'read-only ledger file' },
      load: async (watch) => buildSnapshot(await source.load(), now(), watch),
      publish: async () => ({ status: 'rejected', code: 'ledger_read_only', message: '--ledger is read-only' }),
    };
  }
  const basis = g.github !== undefined ? 'GitHub token; GitHub enforces repository permissions' : 'local principal, unauthenticated';
  return storeBackend(store, { principal, basis }, now);
}

/** Reads and administrator publications on one store, sharing one incrementally extended projection. */
export function storeBackend(
  store: LedgerStore,
  o: { principal: string; basis: string },
  now: () => number = Date.now,
): TuiBackend {
  const counted = counting(store);
  const publisher = new Publisher(counted.store);
  const loadProjection = async (): Promise<Projection> => {
    const { projection } = await publisher.cache.load();
    if (projection === null) fail('queue_uninitialized', `no queue on ${store.label} yet: the first submit-work or submit-graph creates it`);
    return projection;
  };
  return {
    authority: { principal: o.principal, source: store.label, writable: true, basis: o.basis },
    load: async (watch) => buildSnapshot(await loadProjection(), now(), watch),
    publish: async (plan) => {
      const before = counted.writes();
      try {
        const outcome = await publishPlan(publisher, plan, o.principal);
        return { status: outcome.replayed ? 'replayed' : 'committed', commitId: outcome.commitId };
      } catch (e) {
        // Checked before any write, or rebuilt after the publisher confirmed the
        // request absent: definitely not written. Otherwise a write was attempted.
        const definite = thrownWhilePreparing(e) || counted.writes() === before;
        // A write that threw may have left the cached projection ahead of the
        // branch (validated candidate, never confirmed): read cold next time.
        if (!definite) publisher.cache.discard();
        return { status: definite ? 'rejected' : 'uncertain', ...errorOf(e) };
      }
    },
  };
}
