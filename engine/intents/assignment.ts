/**
 * The worker's immutable assignment (spec 7.14 `work_queue_assignment`): a
 * bounded Claim array, the shared dispatch_id and request/claim-commit
 * provenance, exactly as the packer built it (`scheduler/assignment.ts`,
 * canonical-prefix.json `assignment`). Scalar (legacy) assignments and
 * agent-provided replacements are rejected: a trusted activation checks the
 * assignment against the ledger's own dispatch group.
 */
import { z } from 'zod';
import { canonicalize } from '../codec/index.ts';
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { Projection } from '../replay/index.ts';
import { ASSIGNMENT_VERSION, assignmentMember } from '../scheduler/assignment.ts';
import { IdentitySchema, WireObjectSchema } from '../schema/common.ts';

const ResultReferenceSchema = z.strictObject({
  work_id: IdentitySchema,
  result_commit_id: IdentitySchema,
  descriptor: WireObjectSchema,
});

/** AssignmentClaim.json. */
export const AssignmentClaimSchema = z.strictObject({
  handle: IdentitySchema,
  claim_id: IdentitySchema,
  work_id: IdentitySchema,
  work: WireObjectSchema,
  result_refs: z.array(ResultReferenceSchema),
});
export type AssignmentClaim = z.infer<typeof AssignmentClaimSchema>;

export const WorkerAssignmentSchema = z.strictObject({
  version: z.literal(ASSIGNMENT_VERSION),
  dispatch_id: IdentitySchema,
  request_id: IdentitySchema,
  commit_id: IdentitySchema,
  policy_epoch: IdentitySchema,
  pool: IdentitySchema,
  worker_profile: IdentitySchema,
  claims: z.array(AssignmentClaimSchema).min(1).max(16),
});
export type WorkerAssignment = z.infer<typeof WorkerAssignmentSchema>;

/**
 * Parses a trusted assignment input. Absence is `assignment_missing`; anything
 * else that is not a complete version-3 Claim array is `assignment_invalid`.
 * Neither ever degrades a declared worker into an observer (spec 7.12).
 */
export function parseAssignment(value: unknown): WorkerAssignment {
  if (value === undefined || value === null) fail('assignment_missing', 'a declared worker needs its work_queue_assignment input');
  if (typeof value === 'object' && !Array.isArray(value) && !('claims' in value) && 'work_id' in value) {
    fail('assignment_invalid', 'scalar (legacy) assignments are not supported; the version-3 assignment is a Claim array');
  }
  const parsed = WorkerAssignmentSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join('.');
    fail('assignment_invalid', `assignment ${path || '(root)'}: ${issue.message}`, path ? { path } : {});
  }
  const assignment = parsed.data;
  const handles = new Set(assignment.claims.map((c) => c.handle));
  const claims = new Set(assignment.claims.map((c) => c.claim_id));
  if (handles.size !== assignment.claims.length || claims.size !== assignment.claims.length) {
    fail('assignment_invalid', 'assignment handles and Claim ids must be unique');
  }
  return assignment;
}

/**
 * The assignment must be exactly the ledger's dispatch group: same provenance,
 * same members in the same order, the same stored Work payloads. A forged or
 * edited assignment is rejected, never merged with the real one.
 */
export function checkAssignmentAgainstLedger(projection: Projection, assignment: WorkerAssignment): void {
  const group = projection.dispatch(assignment.dispatch_id);
  if (group === undefined) fail('assignment_invalid', `dispatch ${assignment.dispatch_id} is not in the queue ledger`);
  const provenance: Array<[string, string, string]> = [
    ['commit_id', assignment.commit_id, group.commitId],
    ['request_id', assignment.request_id, group.requestId],
    ['policy_epoch', assignment.policy_epoch, group.policyEpoch],
    ['pool', assignment.pool, group.pool],
    ['worker_profile', assignment.worker_profile, group.workerProfile],
  ];
  for (const [field, given, recorded] of provenance) {
    if (given !== recorded) fail('assignment_invalid', `assignment ${field} ${given} differs from the ledger's ${recorded}`, { path: field });
  }
  if (group.claimIds.length !== assignment.claims.length) {
    fail('assignment_invalid', `dispatch ${group.dispatchId} has ${group.claimIds.length} Claims, the assignment ${assignment.claims.length}`);
  }
  assignment.claims.forEach((member, i) => {
    const claim = projection.claim(group.claimIds[i]!)!;
    const path = `claims.${i}`;
    if (member.claim_id !== claim.claimId || member.handle !== claim.handle || member.work_id !== claim.workId) {
      fail('assignment_invalid', `assignment member ${i + 1} is not Claim ${claim.claimId} (${claim.handle})`, { path });
    }
    // The member the trusted binder built from the stored Work: payload and verified Result inputs.
    const expected = assignmentMember(projection.state, projection.work(claim.workId)!, claim.claimId, claim.handle);
    if (canonicalize(member as unknown as JsonObject) !== canonicalize(expected)) {
      fail('assignment_invalid', `assignment member ${member.handle} does not carry the stored Work payload and Result inputs`, { path: `${path}.work` });
    }
  });
}
