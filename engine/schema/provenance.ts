/**
 * Who and what vouches for a record: Actor, Evidence, RunBinding and Trace (v3 set, bda0dd04;
 * Trace.json from a23ef536). Spec 7.6 (envelope), 7.8 (dispatch binding), 7.13 (tracing).
 */
import { z } from 'zod';
import {
  CountBoundSchema,
  DecimalSchema,
  FirstAttemptSchema,
  IdentitySchema,
  PrincipalSchema,
  RevisionSchema,
  TimestampSchema,
} from './common.ts';

export const ActorRoleSchema = z.enum(['administrator', 'producer', 'dispatcher', 'worker', 'reconciler']);
export type ActorRole = z.infer<typeof ActorRoleSchema>;

/** Trusted logical-request origin. run_attempt 1..4096 is structural; workers need 1 (contract). */
export const ActorSchema = z.strictObject({
  role: ActorRoleSchema,
  principal: PrincipalSchema,
  repository: IdentitySchema,
  workflow: IdentitySchema.optional(),
  run_id: DecimalSchema.optional(),
  run_attempt: CountBoundSchema.optional(),
  dispatch_id: IdentitySchema.optional(),
  claim_handle: IdentitySchema.optional(),
});
export type Actor = z.infer<typeof ActorSchema>;

/** Effect disposition of a delivery: Evidence.effects and DeliveryFailure.disposition (7.15). */
export const EffectDispositionSchema = z.enum(['none', 'partial', 'unknown']);
export type EffectDisposition = z.infer<typeof EffectDispositionSchema>;

export const EvidenceKindSchema = z.enum(['prelaunch', 'nonlaunch', 'terminal_run', 'delivery', 'reconciliation']);
export const EvidenceSourceSchema = z.enum(['trusted_publisher', 'github_api', 'trusted_activation', 'verified_receipts']);

/** Normalized verifier output; source strings do not authenticate (contract `provenance.evidence`). */
export const EvidenceSchema = z.strictObject({
  kind: EvidenceKindSchema,
  source: EvidenceSourceSchema,
  repository: IdentitySchema,
  workflow: IdentitySchema,
  ref: RevisionSchema,
  principal: PrincipalSchema,
  checked_at: TimestampSchema,
  attempts: CountBoundSchema.optional(),
  effects: EffectDispositionSchema.optional(),
  receipt: IdentitySchema.optional(),
  conclusion: IdentitySchema.optional(),
  status: z.literal('completed').optional(),
  run_id: DecimalSchema.optional(),
  run_attempt: FirstAttemptSchema.optional(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

/** Native run binding of a dispatch: original attempt 1 of a workflow_dispatch run (7.8). */
export const RunBindingSchema = z.strictObject({
  run_id: DecimalSchema,
  run_attempt: FirstAttemptSchema,
  repository: IdentitySchema,
  workflow: IdentitySchema,
  ref: RevisionSchema,
  principal: PrincipalSchema,
  event: z.literal('workflow_dispatch'),
});
export type RunBinding = z.infer<typeof RunBindingSchema>;

/** Optional correlation metadata; never authority or a scheduling input (7.6, 7.13). */
export const TraceSchema = z.strictObject({
  publisher_attempt: CountBoundSchema.optional(),
  span_id: IdentitySchema.optional(),
  trace_id: IdentitySchema.optional(),
});
export type Trace = z.infer<typeof TraceSchema>;
