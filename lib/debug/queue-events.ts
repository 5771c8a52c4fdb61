/**
 * Debug events shared by several publishers: the scheduler's packing pass and the
 * dispatch_next outcome (counts and closed reasons only; lib/debug/events.ts).
 */
import type { PackResult } from '../../engine/scheduler/pack.ts';
import type { PublishOutcome } from '../publisher/publisher.ts';
import { debugEvent } from './log.ts';

/** `scheduler pack`: what one packing pass granted and the capacity or packing limit that stopped it. */
export function packEvent(plan: PackResult): void {
  debugEvent('scheduler', 'pack', {
    claims: plan.claims.length,
    groups: plan.groups.length,
    bytes: plan.groups.reduce((n, g) => n + g.bytes, 0),
    stop: plan.stopReason,
    granted: plan.claims.length > 0,
  });
}

/** `dispatch grant`: a dispatch_next request's outcome. */
export function grantEvent(outcome: PublishOutcome, plan: PackResult | undefined): void {
  debugEvent('dispatch', 'grant', {
    outcome: outcome.status,
    claims: outcome.status === 'committed' ? (plan?.claims.length ?? 0) : 0,
    groups: outcome.status === 'committed' ? (plan?.groups.length ?? 0) : 0,
  });
}
