/**
 * Delivery verification of one completed Claim (spec 7.15 "Completion is not yet
 * dependency success"): the trusted effect receipts of that Claim's run are checked
 * against the Work's immutable effect contract (payload `effect_contract`,
 * effect-contract.schema.json). Verified delivery permits a Result; otherwise the
 * effect disposition is derived conservatively: any succeeded output is `partial`, only
 * a complete receipt proving nothing was written is `none`, everything else `unknown`
 * (a missing receipt is not proof of no effects). Agent statements never enter here.
 */
import { z } from 'zod';
import { ownRecord } from '../schema/record.ts';
import { canonicalize, sha256Hex } from '../codec/index.ts';
import type { JsonObject } from '../json.ts';
import { DecimalSchema, IdentitySchema } from '../schema/common.ts';

export const RECEIPTS_SCHEMA = 'fairway.delivery/1';

const OutputSchema = z.strictObject({
  type: z.string().min(1).max(128),
  status: z.enum(['succeeded', 'failed', 'unknown']),
  /** Opaque reference of the effect (e.g. `owner/repo#12`), bounded. */
  ref: z.string().max(256).optional(),
});

/** What the trusted safe-output step recorded for one Claim of one run. */
export const DeliveryReceiptsSchema = z.strictObject({
  schema: z.literal(RECEIPTS_SCHEMA),
  dispatch_id: IdentitySchema,
  claim_id: IdentitySchema,
  run_id: DecimalSchema,
  /** True only when the step ran to its end and recorded every attempted output. */
  complete: z.boolean(),
  outputs: z.array(OutputSchema).max(128),
});
export type DeliveryReceipts = z.infer<typeof DeliveryReceiptsSchema>;

const ContractOutputSchema = z.strictObject({
  type: z.string().min(1),
  min: z.int().min(0).max(128),
  max: z.int().min(0).max(128),
  verification: z.strictObject({ verifier_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/), expected: ownRecord(z.string(), z.unknown()) }).optional(),
});

const EffectContractSchema = z.union([
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({ version: z.literal(1), outputs: z.array(ContractOutputSchema).max(128), no_writes: z.boolean().optional() }),
]);

export interface EffectContract {
  noWrites: boolean;
  outputs: Array<{ type: string; min: number; max: number }>;
}

/** The Work's declared contract; absent means "no declared cardinalities". Invalid is explicit. */
export function effectContract(payload: JsonObject): EffectContract | null | 'invalid' {
  const raw = payload.effect_contract;
  if (raw === undefined) return null;
  const parsed = EffectContractSchema.safeParse(raw);
  if (!parsed.success) return 'invalid';
  const c = parsed.data;
  if ('kind' in c) return { noWrites: true, outputs: [] };
  const types = new Set(c.outputs.map((o) => o.type));
  const empty = c.outputs.length === 0;
  if (types.size !== c.outputs.length || c.outputs.some((o) => o.min > o.max) || empty !== (c.no_writes === true)) return 'invalid';
  return { noWrites: empty, outputs: c.outputs.map(({ type, min, max }) => ({ type, min, max })) };
}

export type Verification =
  | { verified: true; receipt: string; outputs: Array<{ type: string; ref?: string }> }
  | { verified: false; reason: string; effects: 'none' | 'partial' | 'unknown'; receipt?: string };

/** Receipt identity: digest of the canonical receipts (bounded, no contents in the ledger). */
export function receiptId(receipts: DeliveryReceipts): string {
  return `r_${sha256Hex(canonicalize(receipts as unknown as JsonObject))}`;
}

export function verifyDelivery(
  scope: { dispatchId: string; claimId: string; runId: string },
  payload: JsonObject,
  raw: unknown,
): Verification {
  if (raw === undefined || raw === null) return { verified: false, reason: 'receipts_missing', effects: 'unknown' };
  const parsed = DeliveryReceiptsSchema.safeParse(raw);
  if (!parsed.success) return { verified: false, reason: 'receipts_invalid', effects: 'unknown' };
  const r = parsed.data;
  if (r.claim_id !== scope.claimId || r.dispatch_id !== scope.dispatchId || r.run_id !== scope.runId) {
    return { verified: false, reason: 'receipts_scope_mismatch', effects: 'unknown' };
  }
  const receipt = receiptId(r);
  const succeeded = r.outputs.filter((o) => o.status === 'succeeded');
  const disposition = succeeded.length > 0 ? 'partial' : r.complete && r.outputs.every((o) => o.status === 'failed') ? 'none' : 'unknown';
  const unverified = (reason: string): Verification => ({ verified: false, reason, effects: disposition, ...(disposition === 'unknown' ? {} : { receipt }) });
  if (!r.complete) return unverified('receipts_incomplete');
  if (r.outputs.some((o) => o.status !== 'succeeded')) return unverified('output_failed');
  const contract = effectContract(payload);
  if (contract === 'invalid') return unverified('effect_contract_invalid');
  if (contract !== null) {
    if (contract.noWrites && succeeded.length > 0) return unverified('undeclared_effects');
    const declared = new Map(contract.outputs.map((o) => [o.type, o]));
    if (succeeded.some((o) => !declared.has(o.type))) return unverified('undeclared_effects');
    for (const o of contract.outputs) {
      const n = succeeded.filter((s) => s.type === o.type).length;
      if (n < o.min || n > o.max) return unverified('output_cardinality');
    }
  }
  return { verified: true, receipt, outputs: succeeded.map((o) => ({ type: o.type, ...(o.ref === undefined ? {} : { ref: o.ref }) })) };
}
