/**
 * The two files that cross the agent boundary, with schema versions:
 *
 * - the activation snapshot (`fairway.snapshot/1`): immutable ledger bytes,
 *   branch version, tip, the trusted role, origin, the worker assignment and
 *   native run, written by the trusted snapshot step;
 * - a staged intent (`fairway.intent/1`): one tool call, bound to the snapshot
 *   it was staged against, with its normalized Claim scope.
 *
 * Both carry a content digest (`snapshot_id`, `fingerprint`) that the trusted
 * processor recomputes: an edited file is rejected, not reinterpreted.
 */
import { z } from 'zod';
import { ownRecord } from '../schema/record.ts';
import { canonicalize, JSON_ERROR_CODES, sha256Hex } from '../codec/index.ts';
import { fail, isProtocolError } from '../errors.ts';
import type { JsonValue } from '../json.ts';
import { DecimalSchema, DigestSchema, IdentitySchema, PrincipalSchema, TimestampSchema } from '../schema/common.ts';
import { SNAPSHOT_ROLES } from './roles.ts';
import { echoedNames, STAGING_TOOLS } from './schemas.ts';

export const SNAPSHOT_SCHEMA = 'fairway.snapshot/1';
export const INTENT_SCHEMA = 'fairway.intent/1';
export const INTENT_ID = /^i_[0-9a-f]{32}$/;

export const SnapshotSchema = z.strictObject({
  schema: z.literal(SNAPSHOT_SCHEMA),
  snapshot_id: DigestSchema,
  created_at: TimestampSchema,
  role: z.enum(SNAPSHOT_ROLES),
  /** Trusted logical origin captured by the snapshot step (spec 7.12); never from intents. */
  origin: z.strictObject({ principal: PrincipalSchema, repository: IdentitySchema.nullable() }),
  source: z.strictObject({ label: z.string().max(1024), branch: IdentitySchema }),
  uninitialized: z.boolean(),
  branch_version: z.string().max(256).nullable(),
  tip: IdentitySchema.nullable(),
  ledger: z.strictObject({ encoding: z.literal('utf8'), sha256: DigestSchema, bytes: TimestampSchema, text: z.string() }),
  /** The worker's original immutable assignment (parsed by `parseAssignment`). */
  assignment: z.unknown(),
  native_run: z.strictObject({ run_id: DecimalSchema, run_attempt: z.int().min(1).max(4096) }).nullable(),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;

const ScopeSchema = z.strictObject({
  dispatch_id: IdentitySchema,
  claim_handle: IdentitySchema,
  claim_id: IdentitySchema,
  work_id: IdentitySchema,
  resolution: z.enum(['explicit', 'sole']),
});

export const IntentRecordSchema = z.strictObject({
  schema: z.literal(INTENT_SCHEMA),
  intent_id: z.string().regex(INTENT_ID),
  seq: z.int().min(1).max(1_000_000),
  tool: z.enum(STAGING_TOOLS as [string, ...string[]]),
  snapshot_id: DigestSchema,
  staged_at: TimestampSchema,
  input: ownRecord(z.string(), z.unknown()),
  scope: ScopeSchema.nullable(),
  fingerprint: DigestSchema,
});
export type IntentRecord = z.infer<typeof IntentRecordSchema>;

/** Digest of everything but the id itself and the ledger text (covered by `ledger.sha256`). */
export function snapshotId(snapshot: Omit<Snapshot, 'snapshot_id'> | Snapshot): string {
  const { ledger, ...rest } = snapshot as Snapshot;
  const header = { ...rest, ledger: { encoding: ledger.encoding, sha256: ledger.sha256, bytes: ledger.bytes } } as Record<string, unknown>;
  delete header.snapshot_id;
  return sha256Hex(canonicalize(header as unknown as JsonValue));
}

/** Parses and verifies a snapshot file's content; any mismatch is `snapshot_invalid`. */
export function parseSnapshot(value: unknown): Snapshot {
  const parsed = SnapshotSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail('snapshot_invalid', `snapshot ${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
  }
  const snapshot = parsed.data;
  if (sha256Hex(snapshot.ledger.text) !== snapshot.ledger.sha256) fail('snapshot_invalid', 'the snapshot ledger does not match its sha256');
  if (snapshotId(snapshot) !== snapshot.snapshot_id) fail('snapshot_invalid', 'the snapshot content does not match its snapshot_id');
  if (snapshot.uninitialized !== (snapshot.tip === null) || (snapshot.uninitialized && snapshot.ledger.text !== '')) {
    fail('snapshot_invalid', 'an uninitialized snapshot has no tip and an empty ledger, and only it');
  }
  return snapshot;
}

export function intentFingerprint(record: Omit<IntentRecord, 'fingerprint'> | IntentRecord): string {
  const content = { ...record } as Record<string, unknown>;
  delete content.fingerprint;
  return sha256Hex(canonicalize(content as unknown as JsonValue));
}

/** Parses a staged intent file and verifies its fingerprint (`intent_invalid`). */
export function parseIntentRecord(value: unknown): IntentRecord {
  const parsed = IntentRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // A planted file's unknown member names are the agent's text: repeated bounded, as tool errors do.
    const message = issue.code === 'unrecognized_keys' ? `unknown member(s) ${echoedNames(issue.keys)}` : issue.message;
    fail('intent_invalid', `intent ${issue.path.map(String).join('.') || '(root)'}: ${message}`);
  }
  let fingerprint: string;
  try {
    fingerprint = intentFingerprint(parsed.data);
  } catch (e) {
    // The codec's refusals (a fraction, an unpaired surrogate, too deep...) are a verdict on the
    // file; anything else is a bug and stays one (internal_error), never intent_invalid.
    if (!isProtocolError(e) || !(JSON_ERROR_CODES as readonly string[]).includes(e.code)) throw e;
    return fail('intent_invalid', `the intent input is not a version-3 JSON value (${e.code}: ${e.message})`);
  }
  if (fingerprint !== parsed.data.fingerprint) fail('intent_invalid', `intent ${parsed.data.intent_id} does not match its fingerprint`);
  return parsed.data;
}

/**
 * Stable request id of a staged submit/dispatch intent: derived from the
 * snapshot identity and the intent id, so every retry of the processor reuses
 * it while distinct intents stay distinct logical requests (spec 7.12). It
 * starts with its activation's prefix (`activationRequestPrefix`), so the ledger
 * alone tells what one activation already committed.
 */
export function intentRequestId(snapshotIdValue: string, intentId: string, kind: 'submit' | 'dispatch_next'): string {
  return `${activationRequestPrefix(snapshotIdValue, kind)}${sha256Hex(`${snapshotIdValue}\n${intentId}`).slice(0, 40)}`;
}

/**
 * The request-id prefix of one activation's intents of `kind`: `wq-dispatch-` (or `wq-submit-`)
 * then 16 hex digits of the snapshot's identity. The processor counts the dispatch groups
 * already reserved under it (the per-run dispatch budget, spec 7.12 / R21) from the ledger, not
 * from intent files the agent could remove.
 */
export function activationRequestPrefix(snapshotIdValue: string, kind: 'submit' | 'dispatch_next'): string {
  return `wq-${kind === 'submit' ? 'submit' : 'dispatch'}-${sha256Hex(`activation\n${snapshotIdValue}`).slice(0, 16)}-`;
}
