/**
 * Checkpoint root (spec 7.6, 7.10 "Compaction"): a genesis-position QueueCommit whose single
 * operation carries deterministic replay state and points at the prior Git commit and history.
 * Shapes come from CheckpointOperation.json (af2acc99) and CheckpointParameters.json (362147f5),
 * which agree with fixtures/checkpoint.json (1bb494cc); neither is in the bda0dd04 v3 union.
 */
import { z } from 'zod';
import { DigestSchema, IdentitySchema, RevisionSchema, WireObjectSchema } from './common.ts';

export const CheckpointParametersSchema = z.strictObject({
  prior_git_sha: RevisionSchema,
  prior_tip: IdentitySchema,
  history_sha256: DigestSchema,
  state_sha256: DigestSchema,
});
export type CheckpointParameters = z.infer<typeof CheckpointParametersSchema>;

/** `state` is an open object: the projection itself is validated by replay, not here. */
export const CheckpointOperationSchema = z.strictObject({
  kind: z.literal('Checkpoint'),
  prior_git_sha: RevisionSchema,
  prior_tip: IdentitySchema,
  history_sha256: DigestSchema,
  state_sha256: DigestSchema,
  state: WireObjectSchema,
});
export type CheckpointOperation = z.infer<typeof CheckpointOperationSchema>;
