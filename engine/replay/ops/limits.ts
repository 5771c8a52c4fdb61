/**
 * Installed resource limits checked at replay (spec 7.17 "Operating limits"; contract
 * `limits`). Every exceeded limit answers `resource_limit` with `details.limit` naming the
 * Policy limit and `details.max` its value, as the reference does for an over-large payload.
 *
 * Spec 7.17: "Result / other operation evidence: 4 KiB per Result descriptor, 1 KiB per
 * observation/control/lifecycle evidence record". `evidence_bytes` bounds the canonical
 * UTF-8 bytes of each lifecycle `evidence` object (Dispatch, Release, Result,
 * DeliveryFailure) and of each whole Observation and Control operation.
 */
import { canonicalSize } from '../../codec/index.ts';
import { fail } from '../../errors.ts';
import type { QueueOperation } from '../../schema/index.ts';
import { CONTRACT_LIMITS } from '../../schema/defaults.ts';
import { where, type CommitContext } from '../context.ts';
import { currentPolicy } from './policy.ts';
import { evidenceRecord } from './evidence-record.ts';

/** The limits checked here; the contract default applies when a historical Policy omits one. */
export type CheckedLimit = 'payload_bytes' | 'graph_nodes' | 'predecessors' | 'pending_nodes' | 'evidence_bytes';

export function limitOf(ctx: CommitContext, name: CheckedLimit): number {
  const limits = currentPolicy(ctx).limits;
  return limits?.[name] ?? CONTRACT_LIMITS[name];
}

/**
 * `resource_limit` unless `used` fits within the installed limit `name`. `what` and `extra` may be
 * given as functions: replay checks several limits per admitted Work and only a failure reads them.
 */
export function checkLimit(ctx: CommitContext, name: CheckedLimit, used: number, what: string | (() => string), extra: Record<string, string | number> | (() => Record<string, string | number>) = {}): void {
  const max = limitOf(ctx, name);
  if (used > max) {
    fail('resource_limit', `${typeof what === 'function' ? what() : what} is ${used}; the ${name} limit is ${max}`, where(ctx), { limit: name, max, ...(typeof extra === 'function' ? extra() : extra) });
  }
}

export function checkEvidenceBytes(ctx: CommitContext, op: QueueOperation): void {
  const record = evidenceRecord(op);
  if (record === null) return;
  // The record's largest evidence, measured where the record was checked (measures.ts), fits.
  const measured = ctx.measures?.evidenceBytes;
  if (measured !== undefined && measured <= limitOf(ctx, 'evidence_bytes')) return;
  const bytes = canonicalSize(record);
  checkLimit(ctx, 'evidence_bytes', bytes, () => `${op.kind} ${op.kind === 'Observation' || op.kind === 'Control' ? 'record' : 'evidence'} (canonical bytes)`);
}
