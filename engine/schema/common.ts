/**
 * Shared primitive schemas of the version-3 wire records. Each mirrors one `$defs` entry of the
 * generated v3 JSON Schemas (github/gh-aw `pkg/workqueue/schema` at bda0dd04), plus the semantic
 * checks those schemas only declare (`x-utf8-max-bytes`, `x-forbid-ascii-controls`) and the
 * contract's decimal-principal rule (contract.json `provenance.principal`).
 */
import { z } from 'zod';
import { utf8ByteLength } from '../codec/json.ts';
import { REVISION, isDecimalId, isIdentity, isReasonCode } from '../identity/validate.ts';
import type { JsonObject, JsonValue } from '../json.ts';

/** `Identity`: 1..256 UTF-8 bytes, no ASCII C0 controls or DEL (spec 7.6 "Identity bounds"). */
export const IdentitySchema = z.string().refine(isIdentity, {
  message: 'expected an identity: 1..256 UTF-8 bytes without ASCII control characters',
});

/** `Decimal`: positive canonical decimal string of at most 256 digits (lossless GitHub IDs). */
export const DecimalSchema = z.string().refine(isDecimalId, {
  message: 'expected a positive canonical decimal string of at most 256 digits',
});

/**
 * Principals (Actor, Evidence, RunBinding, WorkerProfile, Policy producer keys) are GitHub actor
 * IDs as decimal strings (contract.json `provenance.principal`). The JSON Schemas type them only
 * as `Identity`, so this is stricter than the reference schemas.
 */
export const PrincipalSchema = DecimalSchema;

/** `ReasonCode`: sanitized `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$` (contract.json `reason_code`). */
export const ReasonCodeSchema = z.string().refine(isReasonCode, {
  message: 'expected a reason code matching ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$',
});

/** `Digest`: lowercase hexadecimal SHA-256. */
export const DigestSchema = z.string().regex(/^[a-f0-9]{64}$/, 'expected a lowercase SHA-256 hex digest');

/** `Revision`: lowercase SHA-1 or SHA-256 Git object name. */
export const RevisionSchema = z.string().regex(REVISION, 'expected a 40- or 64-hex Git revision');

/**
 * `Timestamp` (also used for byte budgets): safe integer 0..2^53-1. Negative zero has no canonical
 * token and typed negative zero is rejected, not normalized (contract.json `canonical_json`).
 */
export const TimestampSchema = z
  .int()
  .min(0)
  .refine((n) => !Object.is(n, -0), { message: 'negative zero is not a canonical integer' });

/** `CountBound`: 1..4096. */
export const CountBoundSchema = z.int().min(1).max(4096);
/** `ClaimBound`: 1..16 Claims per worker profile. */
export const ClaimBoundSchema = z.int().min(1).max(16);
/** `Priority`: 1..5 (spec 7.2). */
export const PrioritySchema = z.int().min(1).max(5);
/** `Weight`: 1..1000 (spec 7.2). */
export const WeightSchema = z.int().min(1).max(1000);
/** Native attempt: worker binding, Completion and Evidence are always original attempt 1. */
export const FirstAttemptSchema = z.literal(1);

/**
 * Accounting (fairness) key: may be empty; at most 128 UTF-8 bytes (spec 7.2: "at most 128 UTF-8
 * bytes per key"). The JSON Schema bounds only Work.fairness_key, by 128 characters.
 */
export const FairnessKeySchema = z
  .string()
  .max(128)
  .refine((s) => s.length <= 42 || utf8ByteLength(s) <= 128, {
    message: 'expected a fairness key of at most 128 UTF-8 bytes',
  });

/** Longest opaque-value nesting accepted; the codec's whole-record limit is 64 (contract.json). */
const MAX_OPAQUE_DEPTH = 64;

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * True when `v` is a value of the version-3 wire profile (spec 7.6): null, boolean, string, safe
 * integer other than negative zero, array or plain object thereof.
 */
export function isWireValue(v: unknown, depth = 0): v is JsonValue {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isSafeInteger(v) && !Object.is(v, -0);
    case 'object': {
      if (v === null) return true;
      if (depth >= MAX_OPAQUE_DEPTH) return false;
      if (Array.isArray(v)) {
        for (const item of v) if (!isWireValue(item, depth + 1)) return false;
        return true;
      }
      if (!isPlainObject(v)) return false;
      for (const key in v) {
        if (!isWireValue((v as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/** True when `v` is a plain JSON object of the wire profile. */
export function isWireObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && isWireValue(v);
}

/**
 * Open JSON object (`{"type":"object","additionalProperties":{}}`): Work payloads, Result
 * descriptors and Checkpoint state. Contents are preserved as-is, but every nested value must
 * stay within the wire profile (spec 7.6 applies "recursively to every wire value").
 */
export const WireObjectSchema = z.custom<JsonObject>(isWireObject, {
  message: 'expected a JSON object within the version-3 value profile (safe integers only)',
});
