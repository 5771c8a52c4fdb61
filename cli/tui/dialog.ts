/**
 * Checked action review: the confirmation dialog for cancel-work,
 * cancel-claim and reprioritize. It names the authority, the request id and
 * every exact target by full id; `y` publishes only when nothing blocks,
 * including when every target line fits in the confirmation view.
 */
import type { AdminAction } from '../../engine/requests/admin-actions.ts';
import { MAX_ADMIN_TARGETS } from '../../engine/schema/defaults.ts';
import type { Snapshot } from './model.ts';
import { abbrev, quoted, safe, wrap, type Layout } from './layout.ts';
import { parseKey } from './rows.ts';

export type ActionKind = 'cancel_work' | 'cancel_claims' | 'reprioritize';

/** The administrator action (engine/requests/admin-actions.ts) each dialog publishes. */
export const ADMIN_ACTION: Record<ActionKind, Extract<AdminAction, 'cancel-work' | 'cancel-claim' | 'reprioritize'>> = {
  cancel_work: 'cancel-work',
  cancel_claims: 'cancel-claim',
  reprioritize: 'reprioritize',
};

export const REASONS: Record<ActionKind, string> = {
  cancel_work: 'operator_cancelled',
  cancel_claims: 'operator_cancelled',
  reprioritize: 'operator_reprioritized',
};

const TITLES: Record<ActionKind, string> = {
  cancel_work: 'cancel-work: terminally cancel Work',
  cancel_claims: 'cancel-claim: revoke exact current Claims and cancel their Work',
  reprioritize: 'reprioritize: priority override for future grants of available Work',
};

const EFFECTS: Record<ActionKind, string> = {
  cancel_work: 'Keeps fairness charges and native reservations; does not stop a native run.',
  cancel_claims: 'Ownership-fenced; closes the Claim (its logical slot); keeps charges and the native reservation; does not stop a native run.',
  reprioritize: 'Compare-and-set on the current priority; admitted metadata and charges are unchanged.',
};

/** Who publishes: shown in every review. */
export interface Authority {
  principal: string;
  /** Store label (where the ledger lives). */
  source: string;
  writable: boolean;
  /** How the principal is established (local mode is unauthenticated). */
  basis: string;
}

export interface Target {
  kind: 'work' | 'claim';
  id: string;
  /** The line under the full id (metadata, escaped). */
  summary: string;
  /** A Claim's Work, which cancel-claim also cancels. */
  work?: { id: string; nodeKey: string };
  /** Why this target cannot take the action (null: it can). */
  problem: string | null;
  /** A Work target as reviewed: publication refuses it if the Work has changed since. */
  seen?: { state: string; priority: number };
}

export interface Dialog {
  action: ActionKind;
  requestId: string;
  reason: string;
  targets: Target[];
  /** Reprioritize: the chosen class (null until 1..5 is pressed). */
  priority: number | null;
  phase: 'review' | 'publishing';
}

export interface ActionPlan {
  action: ActionKind;
  requestId: string;
  reason: string;
  ids: string[];
  priority: number | null;
  /** Work id -> the state and effective priority the review showed (the publication's precondition). */
  reviewed?: Record<string, { state: string; priority: number }>;
}

function workTarget(s: Snapshot, id: string, action: ActionKind, priority: number | null): Target {
  const w = s.works.get(id);
  if (w === undefined) return { kind: 'work', id, summary: '', problem: 'no longer in the ledger' };
  const change = action === 'reprioritize' ? ` -> ${priority === null ? 'P?' : `P${priority}`}` : '';
  const summary = `  ${quoted(w.nodeKey)} ${w.state} P${w.effectivePriority}${change} graph ${quoted(w.graphId)}`;
  let problem: string | null = null;
  if (action === 'reprioritize' && w.state !== 'available') problem = `${w.state}; only available Work can be reprioritized`;
  if (action === 'cancel_work' && (w.state === 'completed' || w.state === 'cancelled')) problem = `already ${w.state}`;
  return { kind: 'work', id, summary, problem, seen: { state: w.state, priority: w.effectivePriority } };
}

function claimTarget(s: Snapshot, id: string, action: ActionKind): Target {
  const c = s.claims.get(id);
  if (c === undefined) return { kind: 'claim', id, summary: '', problem: 'no longer in the ledger' };
  const w = s.works.get(c.workId);
  const summary = `  ${c.state} ${safe(c.handle)}; also cancels its Work ${quoted(w?.nodeKey ?? '?')}`;
  let problem: string | null = null;
  if (action !== 'cancel_claims') problem = 'a Claim; only Work can be reprioritized';
  else if (c.state !== 'open') problem = `Claim already ${c.state}`;
  else if (w === undefined || w.currentClaim !== id || w.state !== 'claimed') problem = 'no longer owns its Work (historical attempt)';
  return { kind: 'claim', id, summary, work: { id: c.workId, nodeKey: w?.nodeKey ?? '?' }, problem };
}

/** Targets in causal (admission / grant) order, each checked against the snapshot. */
export function reviewTargets(s: Snapshot, keys: readonly string[], action: ActionKind, priority: number | null): Target[] {
  const position = (key: string): [number, number] => {
    const k = parseKey(key)!;
    const p = (k.kind === 'work' ? s.works.get(k.id)?.position : s.claims.get(k.id)?.position) ?? { ordinal: Infinity, operation: 0 };
    return [p.ordinal, p.operation];
  };
  const sorted = [...keys].sort((a, b) => {
    const [pa, oa] = position(a);
    const [pb, ob] = position(b);
    return pa - pb || oa - ob || (a < b ? -1 : a > b ? 1 : 0);
  });
  return sorted.map((key) => {
    const k = parseKey(key)!;
    return k.kind === 'work' ? workTarget(s, k.id, action, priority) : claimTarget(s, k.id, action);
  });
}

export function openDialog(s: Snapshot, action: ActionKind, keys: readonly string[], requestId: string): Dialog {
  return { action, requestId, reason: REASONS[action], targets: reviewTargets(s, keys, action, null), priority: null, phase: 'review' };
}

export function withPriority(s: Snapshot, d: Dialog, priority: number): Dialog {
  const keys = d.targets.map((t) => `${t.kind === 'work' ? 'w' : 'c'}:${t.id}`);
  return { ...d, priority, targets: reviewTargets(s, keys, d.action, priority) };
}

/**
 * The last read failed (the view shows the read before it, marked STALE): the review shows what
 * that older read held, so nothing publishes on it until a read succeeds again.
 */
export type ReadFailure = { code: string } | null;

export interface DialogText {
  head: string[];
  targets: string[];
  foot: string[];
  /** Every line fits in the confirmation view. */
  fits: boolean;
}

/**
 * The confirmation's lines at this terminal size. The effect summary is shown
 * only when there is room for it; the authority, request id and every target
 * always are, or publishing is blocked.
 */
export function dialogText(d: Dialog, a: Authority, repository: string | null, l: Layout, failure: ReadFailure = null): DialogText {
  const width = l.overlayWidth;
  const n = d.targets.length;
  const head = wrap([
    `${ADMIN_ACTION[d.action]}: ${n} target${n === 1 ? '' : 's'}, all-or-nothing`,
    `authority: administrator, principal ${a.principal} (${a.basis})`,
    `queue: ${repository === null ? '-' : safe(repository)} on ${safe(a.source)}`,
    `request id: ${d.requestId}`,
    `reason: ${d.reason}`,
    ...(d.action === 'reprioritize' ? [`new priority: ${d.priority === null ? 'press 1..5' : `P${d.priority}`}`] : []),
  ], width);
  const effect = wrap([TITLES[d.action], EFFECTS[d.action]], width);
  // A Claim's Work id is shown in full when a line holds it, else abbreviated (the Claim id is the exact target).
  const workLine = (t: Target): string[] => (t.work === undefined ? [] : [`  work ${width >= 72 ? t.work.id : abbrev(t.work.id, 12)}`]);
  const targets = wrap(d.targets.flatMap((t) => [
    `${t.problem === null ? '-' : '!'} ${t.kind} ${t.id}`,
    ...(t.summary === '' ? [] : [t.summary]),
    ...workLine(t),
    ...(t.problem === null ? [] : [`  ! ${t.problem}`]),
  ]), width);
  const footer = (blocked: readonly string[]): string[] => (d.phase === 'publishing'
    ? wrap([`publishing request ${d.requestId} ...`], width)
    : blocked.length > 0 ? wrap([`CANNOT PUBLISH: ${blocked[0]}. ${d.action === 'reprioritize' ? '1..5 priority, ' : ''}n/Esc dismiss`], width) : wrap([readyFooter(d)], width));
  // The footer shown counts: a blocked review's reason (and how to dismiss) is longer than `y publish`,
  // and must not be cut off below targets that were judged to fit. The fit blocker comes last, so
  // any other blocker is the reason shown whether or not the targets fit.
  const fits = head.length + targets.length + footer(blockers(d, a, true, failure)).length <= l.overlayLines;
  const foot = footer(blockers(d, a, fits, failure));
  const withEffect = fits && head.length + effect.length + targets.length + foot.length <= l.overlayLines ? [...head, ...effect] : head;
  return { head: withEffect, targets, foot, fits };
}

function readyFooter(d: Dialog): string {
  return `${d.action === 'reprioritize' ? '1..5 priority, ' : ''}y publish, n/Esc dismiss`;
}

/** Why `y` cannot publish right now (empty: it can). */
export function blockers(d: Dialog, a: Authority, fits: boolean, failure: ReadFailure = null): string[] {
  const out: string[] = [];
  if (!a.writable) out.push(`${a.source} is read-only (--ledger); publish through --repo, --remote or --github`);
  if (failure !== null) out.push(`the view is stale: the last read failed (${safe(failure.code)}); dismiss, press r, and review again once a read succeeds`);
  if (d.targets.length === 0) out.push('no targets');
  if (d.targets.length > MAX_ADMIN_TARGETS) out.push(`at most ${MAX_ADMIN_TARGETS} targets per transaction`);
  const bad = d.targets.filter((t) => t.problem !== null).length;
  if (bad > 0) out.push(`${bad} target(s) cannot take this action (marked !); dismiss and change the selection`);
  if (d.action === 'reprioritize' && d.priority === null) out.push('choose a priority 1..5 first');
  if (!fits) out.push('not every target fits in this view: enlarge the terminal or select fewer');
  return out;
}

export function planOf(d: Dialog): ActionPlan {
  const reviewed = Object.fromEntries(d.targets.flatMap((t) => (t.seen === undefined ? [] : [[t.id, t.seen]])));
  return { action: d.action, requestId: d.requestId, reason: d.reason, ids: d.targets.map((t) => t.id), priority: d.priority, reviewed };
}
