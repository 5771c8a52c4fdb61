/**
 * Role gating of the intent tools (spec 7.12 "Observers, origins and worker
 * authority"; operator reference "Workflow roles and intent tools"). The role
 * is the trusted snapshot step's, never something the agent asserts.
 */
import { fail } from '../errors.ts';
import { TOOL_INPUTS, UNSCOPED_TOOL_INPUTS, type ToolName } from './schemas.ts';

export const SNAPSHOT_ROLES = ['observer', 'producer', 'dispatcher', 'worker'] as const;
export type SnapshotRole = (typeof SNAPSHOT_ROLES)[number];

const ALLOWED: Readonly<Record<SnapshotRole, readonly ToolName[]>> = {
  observer: ['work_queue_read', 'work_queue_explain'],
  producer: ['work_queue_read', 'work_queue_explain', 'work_queue_submit'],
  dispatcher: ['work_queue_read', 'work_queue_explain', 'work_queue_submit', 'work_queue_dispatch_next'],
  worker: ['work_queue_read', 'work_queue_explain', 'work_queue_submit', 'work_queue_dispatch_next', 'work_queue_claim_finish'],
};

export function toolsFor(role: SnapshotRole): readonly ToolName[] {
  return ALLOWED[role];
}

/** Throws `role_not_allowed` unless `role` may use `tool`. */
export function checkRoleAllows(role: SnapshotRole, tool: ToolName): void {
  if (!ALLOWED[role].includes(tool)) {
    const why = role === 'observer' ? 'observers can only read and explain' : tool === 'work_queue_claim_finish' ? 'only an assigned worker finishes Claims' : `a ${role} cannot use it`;
    fail('role_not_allowed', `${tool} is not available to this ${role} activation: ${why}`);
  }
}

/** Only a worker activation holds an assignment, so only it can scope a message to a Claim. */
function holdsAssignment(role: SnapshotRole): boolean {
  return role === 'worker';
}

/**
 * The input schema `role`'s tool list advertises for `tool`: a worker's carries `claim_handle`,
 * an unassigned role's does not (sending it could only fail, see checkUnscoped). Calls and staged
 * files are still parsed with TOOL_INPUTS whatever the role, so the refusal keeps its code.
 */
export function advertisedInput(role: SnapshotRole, tool: ToolName) {
  return holdsAssignment(role) ? TOOL_INPUTS[tool] : UNSCOPED_TOOL_INPUTS[tool];
}

/**
 * Unassigned roles have no Claim to scope a message to: a selector from them is
 * not an omission to be filled in, it is an invalid scope.
 */
export function checkUnscoped(role: SnapshotRole, input: Readonly<Record<string, unknown>>): void {
  if (!holdsAssignment(role) && Object.hasOwn(input, 'claim_handle')) {
    fail('claim_scope_invalid', `a ${role} activation holds no assignment; claim_handle cannot be used`);
  }
}
