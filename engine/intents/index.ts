/**
 * Agent intents on the fair protocol (spec 7.12, 7.14), pure: the closed tool
 * schemas, role gate, Claim-scope normalizer, per-Claim effect gate, agent
 * limits, and the snapshot/intent record formats with their digests.
 */
export { checkAssignmentAgainstLedger, parseAssignment, WorkerAssignmentSchema } from './assignment.ts';
export type { AssignmentClaim, WorkerAssignment } from './assignment.ts';
export { checkIntent, checkRecordedScope } from './check.ts';
export type { CheckedIntent, IntentContext } from './check.ts';
export { authorizeClaimEffect, requireRunBinding } from './effects.ts';
export type { EffectAuthorization, NativeRun } from './effects.ts';
export { checkDispatch, parentScopeOf, resolveSubmit } from './limits.ts';
export type { ParentScope, SubmitContext } from './limits.ts';
export { finishRequestId } from '../identity/index.ts';
export {
  intentFingerprint, intentRequestId, parseIntentRecord, parseSnapshot, snapshotId, INTENT_SCHEMA, SNAPSHOT_SCHEMA,
} from './records.ts';
export type { IntentRecord, Snapshot } from './records.ts';
export { checkRoleAllows, SNAPSHOT_ROLES, toolsFor } from './roles.ts';
export type { SnapshotRole } from './roles.ts';
export { normalizeClaimScope } from './scope.ts';
export type { ClaimScope } from './scope.ts';
export { forbiddenFieldCode, parseToolInput, STAGING_TOOLS, TOOL_INPUTS, TOOL_NAMES } from './schemas.ts';
export type { StagingTool, ToolInput, ToolName } from './schemas.ts';
