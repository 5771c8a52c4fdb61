/**
 * The closed operation union (spec 7.6 "Use a small operation union"). QueueOperation.json at
 * bda0dd04 is `anyOf` twelve kinds; every branch is closed with a distinct `kind` const, so a
 * discriminated union on `kind` accepts the same values. Deployment (833e7fac), WorkPriority
 * (6d100452), IssueLink / IssueComment (32c9f3f8) and the Checkpoint root (af2acc99) come from
 * their own snapshots.
 */
import { z } from 'zod';
import { CheckpointOperationSchema } from './checkpoint.ts';
import {
  ClaimCancellationOperationSchema,
  ClaimOperationSchema,
  CompletionOperationSchema,
  DeliveryFailureOperationSchema,
  DispatchOperationSchema,
  ReleaseOperationSchema,
  ResultOperationSchema,
} from './lifecycle.ts';
import { ControlOperationSchema, DeploymentOperationSchema, PolicyOperationSchema } from './policy.ts';
import {
  IssueCommentOperationSchema,
  IssueLinkOperationSchema,
  ObservationOperationSchema,
  WorkCancellationOperationSchema,
  WorkOperationSchema,
  WorkPriorityOperationSchema,
} from './work.ts';

/** The twelve kinds of QueueOperation.json at bda0dd04, in its `anyOf` order. */
export const V3_OPERATION_KINDS = [
  'Policy',
  'Control',
  'Work',
  'Claim',
  'Completion',
  'Result',
  'DeliveryFailure',
  'Observation',
  'ClaimCancellation',
  'WorkCancellation',
  'Dispatch',
  'Release',
] as const;

/** Operations a request may carry in `{operations: [...]}` parameters (everything but Checkpoint). */
const requestOperationOptions = [
  PolicyOperationSchema,
  ControlOperationSchema,
  WorkOperationSchema,
  ClaimOperationSchema,
  CompletionOperationSchema,
  ResultOperationSchema,
  DeliveryFailureOperationSchema,
  ObservationOperationSchema,
  ClaimCancellationOperationSchema,
  WorkCancellationOperationSchema,
  DispatchOperationSchema,
  ReleaseOperationSchema,
  DeploymentOperationSchema,
  WorkPriorityOperationSchema,
  IssueLinkOperationSchema,
  IssueCommentOperationSchema,
] as const;

/**
 * Operation inside OperationsParameters. A Checkpoint is never requested through `operations`;
 * its request kind has CheckpointParameters.
 */
export const RequestOperationSchema = z.discriminatedUnion('kind', [...requestOperationOptions]);
export type RequestOperation = z.infer<typeof RequestOperationSchema>;

/** Any operation of a QueueCommit, including the Checkpoint root. */
export const QueueOperationSchema = z.discriminatedUnion('kind', [...requestOperationOptions, CheckpointOperationSchema]);
export type QueueOperation = z.infer<typeof QueueOperationSchema>;

export type OperationKind = QueueOperation['kind'];
export const OperationKindSchema = z.enum([
  ...V3_OPERATION_KINDS,
  'Deployment',
  'WorkPriority',
  'IssueLink',
  'IssueComment',
  'Checkpoint',
]);
