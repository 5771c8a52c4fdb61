/**
 * Request bodies of the administrator route handlers (`POST /api/admin/*`),
 * validated with zod at the boundary. Reasons are protocol reason codes
 * (`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`), so they are safe to persist.
 */
import { z } from 'zod';
import { isIdentity } from '../../../engine/identity/index.ts';
import type { AdminAction } from '../../../engine/requests/admin-actions.ts';
import { MAX_ADMIN_TARGETS } from '../../../engine/schema/defaults.ts';
import { QueuePolicySchema } from '../../../engine/schema/policy.ts';

export const REASON_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
const Reason = z.string().regex(REASON_PATTERN, 'a reason code: letters, digits and _ . : - (up to 128)');
const RequestId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{7,127}$/, 'a request id: 8-128 of letters, digits and _ . : -').optional();
const Ids = z.array(z.string().min(1).max(256)).min(1).max(MAX_ADMIN_TARGETS);
/** The digest of the operations the dialog previewed (docs/console.md "Previews"); publication refuses others with preview_stale. */
const Expect = z.string().regex(/^[0-9a-f]{64}$/, 'the SHA-256 (hex) of the previewed operations').optional();

export const ControlBody = z.strictObject({
  control: z.enum(['grants_paused', 'admission_paused']),
  value: z.boolean(),
  reason: Reason,
  request_id: RequestId,
  expect_operations_sha256: Expect,
});

export const CancelClaimBody = z.strictObject({ claim_ids: Ids, reason: Reason, request_id: RequestId, expect_operations_sha256: Expect });
export const CancelWorkBody = z.strictObject({ work_ids: Ids, reason: Reason, request_id: RequestId, expect_operations_sha256: Expect });
export const ReprioritizeBody = z.strictObject({ work_ids: Ids, priority: z.number().int().min(1).max(5), reason: Reason, request_id: RequestId, expect_operations_sha256: Expect });
/** Run a cancelled or delivery-failed Work again (docs/console.md "Run it again"): a new node; `reason` is a replacement's evidence id. */
export const RunAgainBody = z.strictObject({
  work_id: z.string().min(1).max(256),
  node_key: z.string().refine(isIdentity, 'a node key: 1..256 UTF-8 bytes without control characters'),
  disposition: z.enum(['idempotent', 'compensated', 'inspection']).optional(),
  reason: Reason,
  request_id: RequestId,
  expect_operations_sha256: Expect,
});

export const PolicyBody = z.strictObject({
  epoch: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, 'an epoch id: letters, digits and _ . : -'),
  policy: QueuePolicySchema,
  request_id: RequestId,
  expect_operations_sha256: Expect,
});

/** The body schema of every administrator action (engine/requests/admin-actions.ts names them). */
export const ADMIN_BODIES = {
  control: ControlBody,
  'cancel-claim': CancelClaimBody,
  'cancel-work': CancelWorkBody,
  reprioritize: ReprioritizeBody,
  policy: PolicyBody,
  'run-again': RunAgainBody,
} as const satisfies { [A in AdminAction]: z.ZodType };

export type { AdminAction };
export type AdminBody<A extends AdminAction> = z.infer<(typeof ADMIN_BODIES)[A]>;
