/**
 * Request kinds and their parameters (QueueRequest.json / RequestParameters.json, bda0dd04, plus
 * the `checkpoint` kind of fixtures/checkpoint.json). Spec 7.6 (request binding), 7.12 (intents);
 * contract.json `request_parameters` maps each kind to one parameter shape.
 */
import { z } from 'zod';
import { CountBoundSchema, DigestSchema, IdentitySchema, TimestampSchema } from './common.ts';
import { CheckpointParametersSchema } from './checkpoint.ts';
import { RequestOperationSchema } from './operations.ts';
import { WorkOperationSchema } from './work.ts';

/** `submit`: complete Work nodes, exactly the persisted Work operations. */
export const SubmitParametersSchema = z.strictObject({
  nodes: z.array(WorkOperationSchema).min(1).max(256),
});
export type SubmitParameters = z.infer<typeof SubmitParametersSchema>;

/** `dispatch_next`: bounded Claim/dispatch/byte budget for one pool. */
export const DispatchNextParametersSchema = z.strictObject({
  pool: IdentitySchema,
  max_claims: CountBoundSchema,
  max_dispatches: CountBoundSchema,
  max_bytes: TimestampSchema,
});
export type DispatchNextParameters = z.infer<typeof DispatchNextParametersSchema>;

/** `finish`: one original Claim's outcome. */
export const FinishParametersSchema = z.strictObject({
  dispatch_id: IdentitySchema,
  claim_handle: IdentitySchema,
  outcome: z.enum(['completed', 'cancelled']),
});
export type FinishParameters = z.infer<typeof FinishParametersSchema>;

/** Every other kind: the closed typed operations, exactly as persisted. */
export const OperationsParametersSchema = z.strictObject({
  operations: z.array(RequestOperationSchema).min(1).max(256),
});
export type OperationsParameters = z.infer<typeof OperationsParametersSchema>;

/** The kinds whose parameters are OperationsParameters. */
export const OPERATIONS_REQUEST_KINDS = [
  'policy',
  'control',
  'observe',
  'dispatch',
  'release',
  'result',
  'delivery_failure',
  'cancel_work',
  'cancel_claim',
] as const;

/** The twelve kinds of QueueRequest.json (in its order) plus `checkpoint`. */
export const RequestKindSchema = z.enum([
  'policy',
  'control',
  'submit',
  'dispatch_next',
  'finish',
  'observe',
  'dispatch',
  'release',
  'result',
  'delivery_failure',
  'cancel_work',
  'cancel_claim',
  'checkpoint',
]);
export type RequestKind = z.infer<typeof RequestKindSchema>;
/** Enum-like access, e.g. `RequestKind.dispatch_next`. */
export const RequestKind = RequestKindSchema.enum;

/** `RequestParameters` as in the JSON Schema: `anyOf` the shapes, independent of the kind. */
export const RequestParametersSchema = z.union([
  SubmitParametersSchema,
  DispatchNextParametersSchema,
  FinishParametersSchema,
  OperationsParametersSchema,
  CheckpointParametersSchema,
]);
export type RequestParameters = z.infer<typeof RequestParametersSchema>;

export type ParametersSchemaFor<K extends RequestKind> = K extends 'submit'
  ? typeof SubmitParametersSchema
  : K extends 'dispatch_next'
    ? typeof DispatchNextParametersSchema
    : K extends 'finish'
      ? typeof FinishParametersSchema
      : K extends 'checkpoint'
        ? typeof CheckpointParametersSchema
        : typeof OperationsParametersSchema;

/** The parameter schema bound to a request kind (contract.json `request_parameters`). */
export function parametersSchemaFor<K extends RequestKind>(kind: K): ParametersSchemaFor<K> {
  const byKind: Record<RequestKind, z.ZodType> = {
    submit: SubmitParametersSchema,
    dispatch_next: DispatchNextParametersSchema,
    finish: FinishParametersSchema,
    checkpoint: CheckpointParametersSchema,
    policy: OperationsParametersSchema,
    control: OperationsParametersSchema,
    observe: OperationsParametersSchema,
    dispatch: OperationsParametersSchema,
    release: OperationsParametersSchema,
    result: OperationsParametersSchema,
    delivery_failure: OperationsParametersSchema,
    cancel_work: OperationsParametersSchema,
    cancel_claim: OperationsParametersSchema,
  };
  return byKind[kind] as ParametersSchemaFor<K>;
}

/**
 * Request envelope. QueueRequest.json accepts any RequestParameters branch with any kind; here the
 * parameters are bound to the kind (contract.json `request_parameters`), which is stricter.
 */
export const QueueRequestSchema = z.discriminatedUnion('kind', [
  z.strictObject({ id: IdentitySchema, kind: z.literal('submit'), parameters: SubmitParametersSchema, fingerprint: DigestSchema }),
  z.strictObject({ id: IdentitySchema, kind: z.literal('dispatch_next'), parameters: DispatchNextParametersSchema, fingerprint: DigestSchema }),
  z.strictObject({ id: IdentitySchema, kind: z.literal('finish'), parameters: FinishParametersSchema, fingerprint: DigestSchema }),
  z.strictObject({ id: IdentitySchema, kind: z.literal('checkpoint'), parameters: CheckpointParametersSchema, fingerprint: DigestSchema }),
  z.strictObject({ id: IdentitySchema, kind: z.enum(OPERATIONS_REQUEST_KINDS), parameters: OperationsParametersSchema, fingerprint: DigestSchema }),
]);
export type QueueRequest = z.infer<typeof QueueRequestSchema>;
