/**
 * The placeholder worker route: a `ref` of only zeros names no commit, so no verified worker
 * could ever run it (spec 7.1: "the runtime MUST validate immutable worker routes before queue
 * publication"). The v3 schema and the reference replayer accept such a ref (the reference
 * fixtures use one), so this is a writer rule, not a replay rule: every Fairway publication
 * refuses to install one (`worker_route_unavailable`), whether in a Policy or a Deployment.
 */
import { ProtocolError } from '../../engine/errors.ts';

/** A ref of only zeros names no commit: the placeholder no Policy or Deployment may install. */
export function isPlaceholderRef(ref: unknown): boolean {
  return typeof ref === 'string' && /^0+$/.test(ref);
}

type Op = { kind?: unknown; policy?: unknown; profile?: unknown; pool?: unknown; worker_profile?: unknown };

/** Throws `worker_route_unavailable` when an operation would install a placeholder route. */
export function refusePlaceholderRoutes(operations: readonly unknown[]): void {
  for (const raw of operations) {
    const op = raw as Op;
    if (op.kind === 'Policy') {
      const pools = ((op.policy ?? {}) as { pools?: Record<string, { profiles?: Record<string, { ref?: unknown }> }> }).pools ?? {};
      for (const [pool, entry] of Object.entries(pools)) {
        for (const [name, profile] of Object.entries(entry.profiles ?? {})) {
          if (isPlaceholderRef(profile.ref)) placeholder(`${pool}/${name}`, String(profile.ref));
        }
      }
    } else if (op.kind === 'Deployment') {
      const ref = (op.profile as { ref?: unknown } | undefined)?.ref;
      if (isPlaceholderRef(ref)) placeholder(`${String(op.pool)}/${String(op.worker_profile)}`, String(ref));
    }
  }
}

function placeholder(route: string, ref: string): never {
  throw new ProtocolError('worker_route_unavailable', `worker route ${route} would install the placeholder ref ${ref}, not a verified immutable revision; nothing was published`, {}, { route });
}
