/**
 * Work-graph references: GitHub Resource identity, typed dependency edges, replacement lineage and
 * result references (v3 set, bda0dd04). Spec 7.15 (DAGs, replacement), 7.16 (Issue/PR nodes).
 */
import { z } from 'zod';
import { DecimalSchema, IdentitySchema, WireObjectSchema } from './common.ts';

/** Resolved GitHub Issue/PR identity; IDs and number are lossless decimal strings (7.16). */
export const ResourceSchema = z.strictObject({
  kind: z.enum(['issue', 'pull_request']),
  host: IdentitySchema,
  repository: IdentitySchema,
  repository_id: DecimalSchema,
  resource_id: DecimalSchema,
  number: DecimalSchema,
});
export type Resource = z.infer<typeof ResourceSchema>;

export const WorkEdgeSchema = z.strictObject({
  kind: z.literal('work'),
  work_id: IdentitySchema,
});
export type WorkEdge = z.infer<typeof WorkEdgeSchema>;

/** Issue gate: `completed` (closed as completed) or `closed` (any closure), 7.16. */
export const IssueEdgeSchema = z.strictObject({
  kind: z.literal('issue'),
  resource: ResourceSchema,
  condition: z.enum(['completed', 'closed']),
});
export type IssueEdge = z.infer<typeof IssueEdgeSchema>;

/** Pull-request gate: only `merged` (7.16). */
export const PullRequestEdgeSchema = z.strictObject({
  kind: z.literal('pull_request'),
  resource: ResourceSchema,
  condition: z.literal('merged'),
});
export type PullRequestEdge = z.infer<typeof PullRequestEdgeSchema>;

/**
 * `Dependency` is `anyOf [WorkEdge, IssueEdge, PullRequestEdge]`; each branch has a distinct
 * `kind` const and is closed, so a discriminated union accepts exactly the same values.
 */
export const DependencySchema = z.discriminatedUnion('kind', [WorkEdgeSchema, IssueEdgeSchema, PullRequestEdgeSchema]);
export type Dependency = z.infer<typeof DependencySchema>;

/** `replacement_of`: failed node plus trusted remediation disposition (7.15). */
export const ReplacementSchema = z.strictObject({
  work_id: IdentitySchema,
  disposition: z.enum(['idempotent', 'compensated', 'inspection']),
  evidence: IdentitySchema,
});
export type Replacement = z.infer<typeof ReplacementSchema>;

/** Predecessor result injected into an assignment (ResultReference.json, bda0dd04). */
export const ResultReferenceSchema = z.strictObject({
  work_id: IdentitySchema,
  result_commit_id: IdentitySchema,
  descriptor: WireObjectSchema,
});
export type ResultReference = z.infer<typeof ResultReferenceSchema>;

/** One member of a worker assignment (AssignmentClaim.json, bda0dd04). */
export const AssignmentClaimSchema = z.strictObject({
  handle: IdentitySchema,
  claim_id: IdentitySchema,
  work_id: IdentitySchema,
  work: WireObjectSchema,
  result_refs: z.array(ResultReferenceSchema),
});
export type AssignmentClaim = z.infer<typeof AssignmentClaimSchema>;
