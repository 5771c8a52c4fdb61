/**
 * The administrator actions (operator reference "Administrator commands", "Keyboard browser
 * and checked actions"): one vocabulary — the CLI's command names, the console's
 * `/api/admin/<action>` routes and the TUI's review dialog — and, for each action, the
 * request kind it publishes and its builder. A surface parses its own input into an action's
 * body and publishes `adminRequest(action, body, state, at)`; none keeps its own switch.
 */
import type { JsonObject } from '../json.ts';
import { stateOf, type QueueSource } from '../state/source.ts';
import { cancelClaimsRequest, cancelWorkRequest, policyRequest, reprioritizeRequest } from './admin.ts';
import { control, type ControlName } from './lifecycle.ts';
import type { BuiltRequest } from './operations.ts';
import { runAgainRequest, type RunAgainBody } from './run-again.ts';

/** Each action's body: its targets and reason, in the wire's words. */
export interface AdminActionBodies {
  control: { control: ControlName; value: boolean | string; reason: string };
  'cancel-work': { work_ids: readonly string[]; reason: string };
  /** Revokes the exact current Claims and cancels their Work (one ownership-fenced `cancel_work`). */
  'cancel-claim': { claim_ids: readonly string[]; reason: string };
  /** `expected_priorities`: each Work's priority as the caller read it (a change since is `priority_conflict`). */
  reprioritize: { work_ids: readonly string[]; priority: number; reason: string; expected_priorities?: Readonly<Record<string, number>> };
  policy: { epoch: string; policy: JsonObject };
  /** A new node from a cancelled Work, or a replacement of a delivery-failed one. */
  'run-again': RunAgainBody;
}

export type AdminAction = keyof AdminActionBodies;
export type AdminActionBody<A extends AdminAction> = AdminActionBodies[A];

interface AdminActionEntry<A extends AdminAction> {
  /** The request kind the action publishes (also the CLI's request id prefix). */
  kind: 'control' | 'cancel_work' | 'policy' | 'submit';
  /** The request on `source` at decision time `at`; the builders check its preconditions (replay checks them again). */
  build(source: QueueSource, body: AdminActionBodies[A], at: number): BuiltRequest;
}

export const ADMIN_ACTIONS: { readonly [A in AdminAction]: AdminActionEntry<A> } = {
  control: { kind: 'control', build: (_state, b) => control(b.control, b.value, b.reason) },
  'cancel-work': { kind: 'cancel_work', build: (state, b) => cancelWorkRequest(state, b.work_ids, b.reason) },
  'cancel-claim': { kind: 'cancel_work', build: (state, b) => cancelClaimsRequest(state, b.claim_ids, b.reason) },
  reprioritize: { kind: 'control', build: (state, b) => reprioritizeRequest(state, b.work_ids, b.priority, b.reason, b.expected_priorities) },
  policy: { kind: 'policy', build: (_state, b) => policyRequest(b.epoch, b.policy) },
  'run-again': { kind: 'submit', build: (state, b, at) => runAgainRequest(state, b, at) },
};

/** The request `action` publishes with `body` on `source` at `at`. */
export function adminRequest<A extends AdminAction>(action: A, body: AdminActionBodies[A], source: QueueSource, at: number): BuiltRequest {
  return (ADMIN_ACTIONS[action] as AdminActionEntry<A>).build(source, body, at);
}

/**
 * Why publishing `body` would change nothing, or null: setting a control to its current value, or
 * every target of a reprioritization to the priority it already has, would write a commit that
 * changes nothing. Surfaces answer it without writing: the console refuses it (`no_change`), the
 * CLI reports it `unchanged`.
 */
export function adminNoChange<A extends AdminAction>(action: A, body: AdminActionBodies[A], source: QueueSource): string | null {
  const state = stateOf(source);
  if (action === 'control') {
    const b = body as AdminActionBodies['control'];
    return state.controls[b.control] === b.value ? `${b.control} is already ${String(b.value)}; nothing to publish` : null;
  }
  if (action === 'reprioritize') {
    const b = body as AdminActionBodies['reprioritize'];
    const works = b.work_ids.map((id) => state.works.get(id));
    return works.length > 0 && works.every((w) => w !== undefined && w.effectivePriority === b.priority) ? `every target already has priority ${b.priority}; nothing to publish` : null;
  }
  return null;
}
