/**
 * Work admission and Work-level facts: Work, WorkCancellation, WorkPriority, Observation and the
 * backing-Issue projection records IssueLink / IssueComment. Spec 7.2, 7.6, 7.15, 7.16.
 */
import { z } from 'zod';
import {
  DigestSchema,
  FairnessKeySchema,
  IdentitySchema,
  PrioritySchema,
  ReasonCodeSchema,
  RevisionSchema,
  TimestampSchema,
  WireObjectSchema,
} from './common.ts';
import { DependencySchema, ReplacementSchema, ResourceSchema } from './graph.ts';

/** Immutable Work metadata (WorkOperation.json, bda0dd04; spec 7.2 field table). */
export const WorkOperationSchema = z.strictObject({
  kind: z.literal('Work'),
  work_id: IdentitySchema,
  graph_id: IdentitySchema,
  node_key: IdentitySchema,
  pool: IdentitySchema,
  priority: PrioritySchema,
  fairness_key: FairnessKeySchema,
  worker_profile: IdentitySchema,
  batch_trust_domain: IdentitySchema,
  payload: WireObjectSchema,
  depends_on: z.array(DependencySchema).max(64),
  enqueued: TimestampSchema,
  subject: ResourceSchema.optional(),
  replacement_of: ReplacementSchema.optional(),
  /**
   * Spec 7.10 (Fairway extension of the bda0dd04 shape, written only when given): an explicit
   * `execution_ref` pin to a registered immutable revision, and an explicit `admission_contract`
   * (replay freezes the approved logical contract when it is omitted; replay/ops/deployment.ts).
   */
  execution_ref: RevisionSchema.optional(),
  admission_contract: DigestSchema.optional(),
  /**
   * A pre-existing Issue backing this Work (operator reference "Backing Issues": the same
   * lossless resource identity as an external dependency, separate from subject and
   * dependencies). Admission requires an installed projector rule's exact `backing_issues`
   * grant (replay/ops/backing-issue.ts).
   */
  backing_issue: ResourceSchema.optional(),
});
export type WorkOperation = z.infer<typeof WorkOperationSchema>;

/**
 * Terminal cancellation (WorkCancellationOperation.json, bda0dd04; spec 7.6 operation table:
 * "optional claim_id fences the selected current owner", as the reference replayer reads it).
 */
export const WorkCancellationOperationSchema = z.strictObject({
  kind: z.literal('WorkCancellation'),
  work_id: IdentitySchema,
  reason: ReasonCodeSchema,
  claim_id: IdentitySchema.optional(),
});
export type WorkCancellationOperation = z.infer<typeof WorkCancellationOperationSchema>;

/** Administrator reprioritization with compare-and-set (WorkPriorityOperation.json, 6d100452). */
export const WorkPriorityOperationSchema = z.strictObject({
  kind: z.literal('WorkPriority'),
  work_id: IdentitySchema,
  priority: PrioritySchema,
  expected_priority: PrioritySchema,
  reason: ReasonCodeSchema,
});
export type WorkPriorityOperation = z.infer<typeof WorkPriorityOperationSchema>;

/** Normalized trusted Issue/PR condition evidence (ObservationOperation.json, bda0dd04; 7.16). */
export const ObservationOperationSchema = z.strictObject({
  kind: z.literal('Observation'),
  observation_id: IdentitySchema,
  resource: ResourceSchema,
  condition: z.enum(['completed', 'closed', 'merged']),
  state: z.enum(['ready', 'waiting', 'failed', 'unknown']),
  observed_at: TimestampSchema,
  credential_generation: IdentitySchema,
  read_status: IdentitySchema,
  merge_commit: IdentitySchema.optional(),
  merged: z.boolean().optional(),
  resource_state: z.enum(['open', 'closed']).optional(),
  source_updated_at: TimestampSchema.optional(),
  state_reason: z.enum(['completed', 'not_planned', 'reopened']).optional(),
});
export type ObservationOperation = z.infer<typeof ObservationOperationSchema>;

/** Backing-Issue binding of a Work (IssueLinkOperation.json, 32c9f3f8). */
export const IssueLinkOperationSchema = z.strictObject({
  kind: z.literal('IssueLink'),
  work_id: IdentitySchema,
  resource: ResourceSchema,
  projector_ref: RevisionSchema,
  claim_id: IdentitySchema.optional(),
});
export type IssueLinkOperation = z.infer<typeof IssueLinkOperationSchema>;

/** Per-Claim backing-Issue comment handle (IssueCommentOperation.json, 32c9f3f8). */
export const IssueCommentOperationSchema = z.strictObject({
  kind: z.literal('IssueComment'),
  work_id: IdentitySchema,
  comment_id: IdentitySchema,
  projector_ref: RevisionSchema,
  claim_id: IdentitySchema.optional(),
  authority_claim_id: IdentitySchema.optional(),
});
export type IssueCommentOperation = z.infer<typeof IssueCommentOperationSchema>;
