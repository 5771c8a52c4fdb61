/**
 * The one admission check of an agent intent, run when the MCP server stages
 * it (against the activation snapshot) and again when the trusted processor
 * reads the staged file (against the same snapshot, before the live queue):
 * closed input schema, role gate, Claim-scope normalization against the
 * original assignment, and the agent limits. Each failure is a coded
 * `ProtocolError`; nothing is written on failure.
 */
import { canonicalize } from '../codec/index.ts';
import { fail } from '../errors.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import type { Projection } from '../replay/index.ts';
import type { WorkerAssignment } from './assignment.ts';
import { checkDispatch, parentScopeOf, resolveSubmit, type ParentScope } from './limits.ts';
import { checkRoleAllows, checkUnscoped, type SnapshotRole } from './roles.ts';
import { normalizeClaimScope, type ClaimScope } from './scope.ts';
import { parseToolInput, type DispatchInput, type FinishInput, type StagingTool, type SubmitInput } from './schemas.ts';

export interface IntentContext {
  role: SnapshotRole;
  /** The original immutable assignment (workers only). */
  assignment: WorkerAssignment | null;
  /** The snapshot projection (null: uninitialized queue). */
  projection: Projection | null;
  /** Snapshot creation time: the trusted `enqueued` of staged Work. */
  createdAt: number;
}

export type CheckedIntent =
  | { tool: 'work_queue_submit'; input: SubmitInput; scope: ClaimScope | null; parent: ParentScope | null }
  | { tool: 'work_queue_dispatch_next'; input: DispatchInput; scope: ClaimScope | null; parent: ParentScope | null }
  | { tool: 'work_queue_claim_finish'; input: FinishInput; scope: ClaimScope; parent: ParentScope };

export function checkIntent(ctx: IntentContext, tool: StagingTool, raw: unknown, intentId = 'i_preview'): CheckedIntent {
  const input = parseToolInput(tool, raw) as Record<string, unknown>;
  checkRoleAllows(ctx.role, tool);
  checkUnscoped(ctx.role, input);
  let scope: ClaimScope | null = null;
  let parent: ParentScope | null = null;
  if (ctx.role === 'worker') {
    scope = normalizeClaimScope(ctx.assignment, input);
    if (ctx.projection === null) fail('queue_uninitialized', 'a worker activation needs its queue');
    parent = parentScopeOf(ctx.projection, scope);
  }
  const policy = ctx.projection?.policyRecord?.policy ?? null;
  switch (tool) {
    case 'work_queue_submit':
      resolveSubmit(input as SubmitInput, { policy, intentId, enqueued: ctx.createdAt, parent });
      return { tool, input: input as SubmitInput, scope, parent };
    case 'work_queue_dispatch_next':
      // On an uninitialized snapshot the pool is checked at publication (after a staged first submit).
      checkDispatch(input as DispatchInput, policy, parent);
      return { tool, input: input as DispatchInput, scope, parent };
    case 'work_queue_claim_finish':
      return { tool, input: input as FinishInput, scope: scope!, parent: parent! };
  }
}

/** The scope recorded at staging must be the one the processor derives again. */
export function checkRecordedScope(recorded: ClaimScope | null, derived: ClaimScope | null): void {
  const same = (recorded === null && derived === null)
    || (recorded !== null && derived !== null && canonicalize(recorded as unknown as JsonObject as JsonValue) === canonicalize(derived as unknown as JsonObject as JsonValue));
  if (!same) fail('claim_scope_invalid', 'the staged Claim scope conflicts with the scope the original assignment resolves to');
}
