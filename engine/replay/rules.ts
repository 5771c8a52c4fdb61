/**
 * Request-level rules of the version-3 contract: which roles may publish which
 * request kinds (contract.json `request_roles`) and which operation kinds each
 * request kind may carry (spec 7.6, contract `request_parameters`).
 */
export type Role = 'administrator' | 'producer' | 'dispatcher' | 'worker' | 'reconciler';

export const REQUEST_ROLES: Readonly<Record<Role, readonly string[]>> = {
  administrator: ['policy', 'control', 'submit', 'dispatch_next', 'observe', 'cancel_work'],
  producer: ['submit', 'cancel_work'],
  dispatcher: ['submit', 'dispatch_next', 'observe', 'dispatch'],
  worker: ['submit', 'dispatch_next', 'observe', 'finish', 'dispatch'],
  reconciler: ['observe', 'dispatch', 'release', 'result', 'delivery_failure', 'cancel_claim', 'cancel_work'],
};

/**
 * Operation kinds a request kind may persist. Policy inside `submit` is the
 * bootstrap genesis form only (checked separately: ordinal 0, first operation).
 * IssueLink/IssueComment are projector records of the protected hooks that run
 * beside admission and settlement. Deployment rides only in an administrator's
 * `control` (spec 7.10: a separate transition, never inside the submit or
 * dispatch_next it precedes; see ops/deployment.ts).
 */
export const REQUEST_OPERATIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  policy: new Set(['Policy']),
  // Dispatch in a control is only an administrator's resolution of a recorded run binding
  // conflict (ops/conflict.ts); the v3 contract has no request kind of its own for it.
  control: new Set(['Control', 'WorkPriority', 'Deployment', 'Dispatch']),
  submit: new Set(['Policy', 'Work', 'IssueLink']),
  dispatch_next: new Set(['Observation', 'Claim', 'IssueComment']),
  finish: new Set(['Completion', 'ClaimCancellation', 'WorkCancellation', 'IssueComment']),
  // Backing-Issue bindings of Work admitted earlier ride in a trusted `observe` (they are
  // verified GitHub facts, like Observations); ops/projector.ts refuses them from workers.
  observe: new Set(['Observation', 'IssueLink', 'IssueComment']),
  dispatch: new Set(['Dispatch']),
  release: new Set(['Release', 'ClaimCancellation', 'WorkCancellation']),
  result: new Set(['Result', 'IssueComment']),
  delivery_failure: new Set(['DeliveryFailure']),
  // An administrator or producer never writes a ClaimCancellation: cancel_work terminally
  // cancels Work, fencing its owner with WorkCancellation.claim_id (spec 7.6; reference replayer).
  cancel_work: new Set(['WorkCancellation']),
  cancel_claim: new Set(['ClaimCancellation', 'WorkCancellation']),
  checkpoint: new Set(['Checkpoint']),
};

/** Request kinds whose parameters are `{operations: [...]}` persisted verbatim. */
export const OPERATIONS_KINDS: ReadonlySet<string> = new Set([
  'policy', 'control', 'observe', 'dispatch', 'release', 'result', 'delivery_failure', 'cancel_work', 'cancel_claim',
]);

export function roleMayRequest(role: string, kind: string): boolean {
  if (kind === 'checkpoint') return role === 'administrator';
  // Own keys only: a role named `__proto__` or `constructor` is no role.
  if (!Object.hasOwn(REQUEST_ROLES, role)) return false;
  return (REQUEST_ROLES as Record<string, readonly string[]>)[role]!.includes(kind);
}
