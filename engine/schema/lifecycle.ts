/**
 * Claim and dispatch lifecycle operations (v3 set, bda0dd04): Claim, Completion, Result,
 * DeliveryFailure, ClaimCancellation, Dispatch and Release. Spec 7.6, 7.8, 7.14, 7.15.
 */
import { z } from 'zod';
import { DecimalSchema, FirstAttemptSchema, IdentitySchema, ReasonCodeSchema, TimestampSchema, WireObjectSchema } from './common.ts';
import { ActorSchema, EffectDispositionSchema, EvidenceSchema, RunBindingSchema } from './provenance.ts';

/**
 * JSON Schema `uniqueItems` for an array of strings: no two items SameValueZero-equal (a `Set`'s
 * notion). Replay checks every Claim's observations, nearly always none or a few: short arrays
 * are compared pairwise instead of building a `Set`.
 */
function uniqueStrings(items: string[]): boolean {
  const n = items.length;
  if (n > 8) return new Set(items).size === n;
  for (let i = 1; i < n; i++) {
    const a = items[i];
    for (let j = 0; j < i; j++) {
      const b = items[j];
      if (a === b || (a !== a && b !== b)) return false; // SameValueZero (NaN equals NaN)
    }
  }
  return true;
}

/** Selected Work with its dispatch group, local handle and bound observations (≤64, unique). */
export const ClaimOperationSchema = z.strictObject({
  kind: z.literal('Claim'),
  work_id: IdentitySchema,
  claim_id: IdentitySchema,
  dispatch_id: IdentitySchema,
  handle: IdentitySchema,
  observations: z
    .array(IdentitySchema)
    .max(64)
    .refine(uniqueStrings, { message: 'observations must be unique' }),
});
export type ClaimOperation = z.infer<typeof ClaimOperationSchema>;

/** Terminal ownership of an effective Claim by original run attempt 1. */
export const CompletionOperationSchema = z.strictObject({
  kind: z.literal('Completion'),
  work_id: IdentitySchema,
  claim_id: IdentitySchema,
  dispatch_id: IdentitySchema,
  claim_handle: IdentitySchema,
  run_id: DecimalSchema,
  run_attempt: FirstAttemptSchema,
});
export type CompletionOperation = z.infer<typeof CompletionOperationSchema>;

/** Verified result barrier of a completed node (7.15). */
export const ResultOperationSchema = z.strictObject({
  kind: z.literal('Result'),
  work_id: IdentitySchema,
  claim_id: IdentitySchema,
  completion_id: IdentitySchema,
  descriptor: WireObjectSchema,
  evidence: EvidenceSchema,
});
export type ResultOperation = z.infer<typeof ResultOperationSchema>;

/** Terminal delivery failure after bounded reconciliation (7.15). */
export const DeliveryFailureOperationSchema = z.strictObject({
  kind: z.literal('DeliveryFailure'),
  work_id: IdentitySchema,
  claim_id: IdentitySchema,
  completion_id: IdentitySchema,
  reason: ReasonCodeSchema,
  disposition: EffectDispositionSchema,
  evidence: EvidenceSchema,
});
export type DeliveryFailureOperation = z.infer<typeof DeliveryFailureOperationSchema>;

/** Remove a Claim's authority, with retry-not-before metadata. */
export const ClaimCancellationOperationSchema = z.strictObject({
  kind: z.literal('ClaimCancellation'),
  work_id: IdentitySchema,
  claim_id: IdentitySchema,
  reason: ReasonCodeSchema,
  retry_not_before: TimestampSchema,
});
export type ClaimCancellationOperation = z.infer<typeof ClaimCancellationOperationSchema>;

export const DispatchStateSchema = z.enum(['started', 'bound', 'rejected', 'uncertain', 'unresolved']);
export type DispatchState = z.infer<typeof DispatchStateSchema>;

/**
 * Launch lifecycle of a dispatch group (7.8). The JSON Schema makes sender/run/evidence/reason
 * optional independently of `state`; state-specific requirements are replay rules.
 */
export const DispatchOperationSchema = z.strictObject({
  kind: z.literal('Dispatch'),
  dispatch_id: IdentitySchema,
  state: DispatchStateSchema,
  sender: ActorSchema.optional(),
  run: RunBindingSchema.optional(),
  evidence: EvidenceSchema.optional(),
  reason: ReasonCodeSchema.optional(),
});
export type DispatchOperation = z.infer<typeof DispatchOperationSchema>;

/** Release a group's native reservation once, with termination/nonlaunch evidence (7.8). */
export const ReleaseOperationSchema = z.strictObject({
  kind: z.literal('Release'),
  dispatch_id: IdentitySchema,
  evidence: EvidenceSchema,
});
export type ReleaseOperation = z.infer<typeof ReleaseOperationSchema>;
