/**
 * The version-3 QueueCommit envelope (QueueCommit.json, bda0dd04; spec 7.6 envelope table) and its
 * parser. Readers accept only this closed shape; older or unknown records are rejected (7.2).
 */
import { z } from 'zod';
import { ProtocolError, type ErrorLocation } from '../errors.ts';
import { schemaErrorCode } from './codes.ts';
import { IdentitySchema, TimestampSchema } from './common.ts';
import { QueueOperationSchema } from './operations.ts';
import { compileValidator, PROVEN, type FastValidator } from './compiled.ts';
import { OperationsParametersSchema, QueueRequestSchema, SubmitParametersSchema } from './parameters.ts';
import { ActorSchema, TraceSchema } from './provenance.ts';

export const QueueCommitSchema = z.strictObject({
  version: z.literal(3),
  id: IdentitySchema,
  /** Predecessor commit; null only for genesis or a checkpoint root. */
  previous: IdentitySchema.nullable(),
  request: QueueRequestSchema,
  actor: ActorSchema,
  policy_epoch: IdentitySchema,
  at: TimestampSchema,
  operations: z.array(QueueOperationSchema).min(1).max(256),
  trace: TraceSchema.optional(),
});
export type QueueCommit = z.infer<typeof QueueCommitSchema>;

/** Dot-joined issue path, e.g. `operations.2.work_id` (ErrorLocation.path). */
export function issuePath(issue: z.core.$ZodIssue | undefined): string {
  return issue === undefined ? '' : issue.path.map(String).join('.');
}

/**
 * Parse a schema-checked value or throw a `ProtocolError` located at the first issue: the
 * reference contract's specific code where it has one (`reason_invalid`, `resource_limit`,
 * `unsupported_protocol`, ... see codes.ts), otherwise `schema_invalid`. `what` names the record
 * kind in the message.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string, where: ErrorLocation = {}, context?: z.core.ParseContext<z.core.$ZodIssue>): z.output<S> {
  const result = schema.safeParse(value, context);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issuePath(issue);
  const at = path === '' ? '(root)' : path;
  const detail = issue === undefined ? 'invalid' : issue.code === 'invalid_key' ? `invalid key: ${issue.issues[0]?.message ?? issue.message}` : issue.message;
  throw new ProtocolError(schemaErrorCode(issue, value), `${what} does not match the version-3 schema at ${at}: ${detail}`, {
    ...where,
    path,
  });
}

/**
 * The parser behind every record the generated validator does not prove (a Policy, a
 * rejection): zod's runtime schema for the first few, then zod's compiled clone (its issues
 * are the runtime's). Compiling costs tens of milliseconds, more than a command that reads an
 * ordinary ledger (one genesis Policy, a few Policy changes) spends in zod altogether. The
 * first few also skip zod's per-object `new Function` fast path (`jitless`, a documented
 * parse option with the same answers): generating it for every object schema a Policy record
 * reaches costs a fresh process more than parsing those few records without it.
 */
let compiledQueueCommit: z.ZodType<QueueCommit> | undefined;
let unprovenRecords = 0;
const COMPILE_AFTER = 32;
const RUNTIME_CONTEXT = { jitless: true } as const;

/**
 * The replay hot path (schema/compiled.ts): an in-place validator generated from
 * `QueueCommitSchema` itself on the first record (not at module load: a command that never
 * reads a ledger does not pay for it). A record it proves is returned as decoded, without zod's
 * copy; anything else (invalid, or a Policy with its null-prototype records) is parsed by zod,
 * which gives the exact issue, code and output.
 */
let fastQueueCommit: FastValidator | undefined;

function fastValidator(): FastValidator {
  return (fastQueueCommit ??= compileValidator(QueueCommitSchema, {
    proven: QueueCommitSchema.shape.operations,
    arrays: [SubmitParametersSchema.shape.nodes, OperationsParametersSchema.shape.operations],
  }));
}

/**
 * Validate one decoded ledger record (called by replay for every line). `alias` may name the
 * record's `request.parameters.nodes` or `request.parameters.operations` array when the caller
 * knows it is deep-equal to the record's `operations` (replay: their canonical texts are equal),
 * so its elements are not validated twice; a wrong alias voids that guarantee.
 */
export function parseQueueCommit(value: unknown, alias?: unknown): QueueCommit {
  if (fastValidator()(value, alias) === PROVEN) return value as QueueCommit;
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  if (compiledQueueCommit === undefined && ++unprovenRecords > COMPILE_AFTER) compiledQueueCommit = z.compile(QueueCommitSchema);
  const where = typeof id === 'string' ? { commit: id } : {};
  return compiledQueueCommit === undefined ? parseWith(QueueCommitSchema, value, 'QueueCommit', where, RUNTIME_CONTEXT) : parseWith(compiledQueueCommit, value, 'QueueCommit', where);
}
