/**
 * The Claim-scope normalizer (spec 7.14 "Individual finalization and
 * effects", the "Trusted resolution" table). One function attributes every
 * worker message (finish intents, worker-generated submit/dispatch intents,
 * any safe output) to exactly one canonical claim_handle, judged against the
 * ORIGINAL immutable assignment, never against the Claims still open:
 *
 * | Original assignment / selector              | Trusted resolution                         |
 * |---------------------------------------------|--------------------------------------------|
 * | One Claim, selector omitted                 | attach its sole handle                     |
 * | One Claim, correct explicit selector        | preserve that handle                       |
 * | Several Claims, valid explicit selector     | preserve that member's handle              |
 * | Several Claims, selector omitted            | claim_scope_required (even if one is open) |
 * | Unknown/malformed/foreign/conflicting       | claim_scope_invalid (never a fallback)     |
 * | Missing/invalid assignment                  | assignment_missing / assignment_invalid    |
 *
 * "Omitted" means the `claim_handle` member is absent: null, an empty string
 * or a Claim id is a malformed selector, not an omission. Native-binding
 * authority is the separate per-Claim effect gate (`effects.ts`).
 */
import { fail } from '../errors.ts';
import { isIdentity } from '../identity/index.ts';
import { parseAssignment, type WorkerAssignment } from './assignment.ts';

/** A canonical Claim-scoped attribution, persisted with the message and its receipt. */
export interface ClaimScope {
  dispatch_id: string;
  claim_handle: string;
  claim_id: string;
  work_id: string;
  /** How the handle was obtained: `explicit` or `sole` (attached automatically). */
  resolution: 'explicit' | 'sole';
}

/**
 * Resolves the message's selector against the original assignment. `message`
 * is the agent's message object as received (absence is tested with
 * `Object.hasOwn`). Optional `claim_id` / `dispatch_id` members, when a
 * message carries them, must agree with the selected member (a disagreement
 * is a conflicting selector).
 */
export function normalizeClaimScope(assignment: WorkerAssignment | unknown, message: Readonly<Record<string, unknown>>): ClaimScope {
  const original = parseAssignment(assignment);
  const members = original.claims;
  let member: (typeof members)[number] | undefined;
  let resolution: ClaimScope['resolution'];
  if (!Object.hasOwn(message, 'claim_handle')) {
    if (members.length !== 1) {
      fail('claim_scope_required', `this assignment has ${members.length} Claims: name one with claim_handle (${members.map((m) => m.handle).join(', ')})`);
    }
    member = members[0]!;
    resolution = 'sole';
  } else {
    const selector = message.claim_handle;
    if (typeof selector !== 'string' || !isIdentity(selector)) {
      fail('claim_scope_invalid', `claim_handle must be one of this assignment's handles, not ${describe(selector)}`);
    }
    member = members.find((m) => m.handle === selector);
    if (member === undefined) {
      fail('claim_scope_invalid', `claim_handle ${JSON.stringify(selector)} is not a member of dispatch ${original.dispatch_id}`);
    }
    resolution = 'explicit';
  }
  if (Object.hasOwn(message, 'claim_id') && message.claim_id !== member.claim_id) {
    fail('claim_scope_invalid', `the message names Claim ${describe(message.claim_id)} but its selector resolves to ${member.handle}`);
  }
  if (Object.hasOwn(message, 'dispatch_id') && message.dispatch_id !== original.dispatch_id) {
    fail('claim_scope_invalid', `the message names dispatch ${describe(message.dispatch_id)}, not this assignment's`);
  }
  return { dispatch_id: original.dispatch_id, claim_handle: member.handle, claim_id: member.claim_id, work_id: member.work_id, resolution };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value === '' ? 'an empty string' : JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return typeof value;
}
