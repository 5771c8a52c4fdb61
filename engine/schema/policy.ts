/**
 * Administrative operations: Policy (scheduling economics and approved worker profiles), Control
 * and Deployment. Spec 7.2 (weights, keys), 7.10 (policy changes, deployments, controls).
 */
import { z } from 'zod';
import { ownRecord } from './record.ts';
import { ResourceSchema } from './graph.ts';
import {
  ClaimBoundSchema,
  CountBoundSchema,
  DigestSchema,
  FairnessKeySchema,
  IdentitySchema,
  PrincipalSchema,
  PrioritySchema,
  ReasonCodeSchema,
  RevisionSchema,
  TimestampSchema,
  WeightSchema,
} from './common.ts';

/** Approved worker contract of a pool profile (WorkerProfile.json, bda0dd04). */
export const WorkerProfileSchema = z.strictObject({
  workflow: IdentitySchema,
  ref: RevisionSchema,
  principal: PrincipalSchema,
  trust_domain: IdentitySchema,
  credential_scope: IdentitySchema,
  effect_scope: IdentitySchema,
  max_claims: ClaimBoundSchema,
  share_keys: z.boolean(),
});
export type WorkerProfile = z.infer<typeof WorkerProfileSchema>;

export const RetryPolicySchema = z.strictObject({
  max_attempts: CountBoundSchema,
  backoff_ms: TimestampSchema,
});
export type RetryPolicy = z.infer<typeof RetryPolicySchema>;

export const ReconciliationPolicySchema = z.strictObject({
  max_attempts: CountBoundSchema,
  deadline_ms: TimestampSchema,
});
export type ReconciliationPolicy = z.infer<typeof ReconciliationPolicySchema>;

/** Installed resource limits (contract.json `limits` gives the defaults). */
export const LimitsSchema = z.strictObject({
  ledger_bytes: TimestampSchema,
  recovery_bytes: TimestampSchema,
  payload_bytes: TimestampSchema,
  graph_nodes: CountBoundSchema,
  predecessors: CountBoundSchema,
  pending_nodes: CountBoundSchema,
  operations: CountBoundSchema,
  assignment_bytes: TimestampSchema,
  result_bytes: TimestampSchema,
  evidence_bytes: TimestampSchema,
  observation_writes: CountBoundSchema,
});
export type Limits = z.infer<typeof LimitsSchema>;

/** Producer entitlement. Fairness keys are bounded like accounting keys (7.2). */
export const ProducerRuleSchema = z.strictObject({
  pools: z.array(IdentitySchema),
  priorities: z.array(PrioritySchema),
  fairness_keys: z.array(FairnessKeySchema),
});
export type ProducerRule = z.infer<typeof ProducerRuleSchema>;

/**
 * Trusted backing-Issue projector authority (ProjectorRule.json, 3955b4e1, widened with the two
 * optional members the reference replayer reads: `completion_policy` and `backing_issues`;
 * operator reference "Backing Issues"). A rule authorizes the projecting workflow `workflow`
 * at revision `ref`, run by `principal`, to project Work of `pools` into `repositories`.
 * `backing_issues` grants exact pre-existing Issues a Work may name as `backing_issue`;
 * `completion_policy: "close-on-result"` lets the projector close the Issue of Work admitted
 * under this rule once a verified non-PR Result exists (default `keep-open`). Coherence
 * (installed pools, repository names, grants inside `repositories`) is checked by replay.
 */
export const ProjectorRuleSchema = z.strictObject({
  principal: PrincipalSchema,
  workflow: IdentitySchema,
  ref: RevisionSchema,
  pools: z.array(IdentitySchema).min(1).max(256),
  repositories: z.array(IdentitySchema).min(1).max(256),
  completion_policy: z.enum(['keep-open', 'close-on-result']).optional(),
  backing_issues: z.array(ResourceSchema).min(1).max(256).optional(),
});
export type ProjectorRule = z.infer<typeof ProjectorRuleSchema>;

/** An installed rule set (`projectors`; also an earlier epoch's rules kept by a checkpoint). */
export const ProjectorRulesSchema = z.array(ProjectorRuleSchema).min(1).max(256);

/** Profiles are keyed by identity (`x-key-utf8-max-bytes: 256`, controls forbidden). */
export const PoolPolicySchema = z.strictObject({
  default_profile: IdentitySchema,
  profiles: ownRecord(IdentitySchema, WorkerProfileSchema),
  logical_limit: CountBoundSchema,
  native_limit: CountBoundSchema,
  allowed_repositories: z.array(IdentitySchema),
  max_observation_age_ms: TimestampSchema,
  retry: RetryPolicySchema,
  reconciliation: ReconciliationPolicySchema,
  per_account_limit: CountBoundSchema.optional(),
});
export type PoolPolicy = z.infer<typeof PoolPolicySchema>;

/**
 * Queue-wide policy. Pool keys are identities; producer keys are principals (decimal, contract
 * `provenance.principal`); accounting-weight keys are fairness keys (7.2). The 1024-key
 * cardinality ceiling of 7.2 is a Policy-admission rule, checked by replay, not here.
 */
export const QueuePolicySchema = z.strictObject({
  mode: z.enum(['weighted-priority', 'strict-priority']),
  class_weights: z.array(WeightSchema).length(5),
  accounting_weights: ownRecord(FairnessKeySchema, WeightSchema),
  producers: ownRecord(PrincipalSchema, ProducerRuleSchema),
  pools: ownRecord(IdentitySchema, PoolPolicySchema),
  limits: LimitsSchema,
  /** Backing-Issue projector rules (absent: none; AW-managed hooks project without enrollment). */
  projectors: ProjectorRulesSchema.optional(),
});
export type QueuePolicy = z.infer<typeof QueuePolicySchema>;

/** Install a policy epoch (PolicyOperation.json, bda0dd04). */
export const PolicyOperationSchema = z.strictObject({
  kind: z.literal('Policy'),
  epoch: IdentitySchema,
  policy: QueuePolicySchema,
});
export type PolicyOperation = z.infer<typeof PolicyOperationSchema>;

export const ControlNameSchema = z.enum(['admission_paused', 'grants_paused', 'credential_generation']);

/** Operational control (ControlOperation.json, bda0dd04); `value` is `anyOf [boolean, Identity]`. */
export const ControlOperationSchema = z.strictObject({
  kind: z.literal('Control'),
  control: ControlNameSchema,
  value: z.union([z.boolean(), IdentitySchema]),
  reason: ReasonCodeSchema,
});
export type ControlOperation = z.infer<typeof ControlOperationSchema>;

/**
 * Worker profile as carried by a Deployment (DeploymentOperation.json, 833e7fac). Unlike the v3
 * WorkerProfile it has an optional `logical_contract` digest and an optional `principal`.
 */
export const DeploymentWorkerProfileSchema = z.strictObject({
  workflow: IdentitySchema,
  ref: RevisionSchema,
  principal: PrincipalSchema.optional(),
  trust_domain: IdentitySchema,
  credential_scope: IdentitySchema,
  effect_scope: IdentitySchema,
  max_claims: ClaimBoundSchema,
  share_keys: z.boolean(),
  logical_contract: DigestSchema.optional(),
});
export type DeploymentWorkerProfile = z.infer<typeof DeploymentWorkerProfileSchema>;

/** Compare-and-set of a prospective worker revision/availability (833e7fac; spec 7.10). */
export const DeploymentOperationSchema = z.strictObject({
  kind: z.literal('Deployment'),
  pool: IdentitySchema,
  worker_profile: IdentitySchema,
  expected_ref: RevisionSchema,
  expected_contract: DigestSchema,
  profile: DeploymentWorkerProfileSchema,
  available: z.boolean(),
  activate: z.boolean().optional(),
  reason: ReasonCodeSchema,
});
export type DeploymentOperation = z.infer<typeof DeploymentOperationSchema>;
