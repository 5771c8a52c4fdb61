/**
 * The details pane: full ids and metadata of the focused graph, Work or Claim,
 * with cross-references for Work dependencies (shared Work, Issue and pull
 * request gates). Never payloads, receipts or run evidence bodies.
 */
import type { BlockingStep } from '../../engine/scheduler/eligibility.ts';
import type { ClaimItem, DependencyRef, Snapshot, WorkItem, WorkRef } from './model.ts';
import { quoted, safe, wrap } from './layout.ts';
import { parseKey } from './rows.ts';

/** `name value`; a long value (a full id) goes on its own line, so it wraps least. */
function field(name: string, value: string | number | null): string {
  const text = value === null ? '-' : String(value);
  return text.length > 28 ? `${name}\n${text}` : `${name.padEnd(15)} ${text}`;
}
const time = (ms: number | null): string | null => (ms === null ? null : `${new Date(ms).toISOString()}`);

function workRefLine(s: Snapshot, ref: WorkRef, from: WorkItem | null): string[] {
  if (ref.nodeKey === null) return ['- work not in this ledger', `  ${ref.workId}`];
  const shared = from !== null && ref.graphId !== from.graphId ? ` in graph ${quoted(ref.graphId ?? '')}` : '';
  const attempts = s.works.get(ref.workId)?.claims.length ?? 0;
  return [`- work ${quoted(ref.nodeKey)} ${ref.state}${shared}${attempts > 0 ? ` (${attempts} attempts)` : ''}`, `  ${ref.workId}`];
}

function dependencyLines(s: Snapshot, w: WorkItem, d: DependencyRef): string[] {
  if (d.kind === 'work') return workRefLine(s, d, w);
  const what = d.kind === 'issue' ? 'issue' : 'pull request';
  const o = d.observation;
  const seen = o === null ? 'no observation yet' : `${o.state} (observed ${time(o.observedAt)})`;
  return [
    `- ${what} gate: ${safe(d.repository)}#${safe(d.number)} must be ${d.condition}`,
    `    host ${safe(d.host)} repository_id ${safe(d.repositoryId)} resource_id ${safe(d.resourceId)}`,
    `    latest: ${seen}`,
    ...(o === null ? [] : [`    observation ${safe(o.id)}`]),
  ];
}

function blockingLines(path: readonly BlockingStep[]): string[] {
  return path.flatMap((b) =>
    b.kind === 'work'
      ? [`- ${b.reason}: work ${b.state ?? ''}${b.barrier && b.barrier !== 'none' ? ` barrier=${b.barrier}` : ''}`, `  ${b.work_id ?? '?'}`]
      : [`- ${b.reason}: ${b.kind} must be ${b.condition ?? '?'}`, `  gate ${safe(b.gate ?? '')}`]);
}

export function workLines(s: Snapshot, w: WorkItem): string[] {
  const lines = [
    'WORK',
    field('work_id', w.id),
    field('graph', quoted(w.graphId)),
    field('node_key', quoted(w.nodeKey)),
    field('state', w.state),
    field('readiness', w.readiness),
    field('barrier', w.barrier),
    field('pool', quoted(w.pool)),
    field('worker_profile', quoted(w.workerProfile)),
    field('priority', w.priority === w.effectivePriority ? `P${w.priority}` : `P${w.effectivePriority} (admitted P${w.priority}, overridden)`),
    field('fairness_key', quoted(w.fairnessKey)),
    field('position', `${w.position.ordinal}.${w.position.operation}`),
    field('attempts', w.attempts),
    field('retry_after', time(w.retryNotBefore)),
    field('current_claim', w.currentClaim),
    field('admitted_in', w.admittedIn),
  ];
  for (const [name, id] of [['completion', w.completion], ['result', w.result], ['delivery_fail', w.deliveryFailure], ['cancellation', w.cancellation]] as const) {
    if (id !== null) lines.push(field(name, id));
  }
  lines.push('', `DEPENDS ON (${w.dependsOn.length})`);
  for (const d of w.dependsOn) lines.push(...dependencyLines(s, w, d));
  if (w.blockingPath.length > 0) lines.push('', 'BLOCKING PATH', ...blockingLines(w.blockingPath));
  lines.push('', `DEPENDED ON BY (${w.successors.length})`);
  for (const r of w.successors) lines.push(...workRefLine(s, r, w));
  lines.push('', `CLAIM ATTEMPTS (${w.claims.length})`);
  for (const id of w.claims) {
    const c = s.claims.get(id);
    lines.push(`- ${c?.state ?? '?'} ${safe(c?.handle ?? '')}${id === w.currentClaim ? ' (current)' : ''}`, id);
  }
  return lines;
}

export function claimLines(s: Snapshot, c: ClaimItem): string[] {
  const w = s.works.get(c.workId);
  const g = c.dispatch;
  return [
    'CLAIM',
    field('claim_id', c.id),
    field('state', c.state),
    field('work_id', c.workId),
    field('node_key', w === undefined ? null : quoted(w.nodeKey)),
    field('work_state', w?.state ?? null),
    field('current', w?.currentClaim === c.id ? 'yes (owns the Work)' : 'no (historical)'),
    field('handle', safe(c.handle)),
    field('request_id', safe(c.requestId)),
    field('granted_in', c.grantedIn),
    field('position', `${c.position.ordinal}.${c.position.operation}`),
    field('charged', `P${c.priority} key ${quoted(c.fairnessKey)}`),
    field('terminal_in', c.terminalCommit),
    field('retry_after', time(c.retryNotBefore)),
    '',
    'DISPATCH GROUP',
    field('dispatch_id', g.id),
    field('state', g.state),
    field('profile', quoted(g.profile)),
    field('run', g.runBound ? 'bound (evidence not shown)' : 'not bound'),
    field('reservation', g.released ? `released in ${g.releaseCommit ?? '?'}` : 'outstanding'),
    `MEMBERS (${g.members.length})`,
    ...g.members.flatMap((m) => [`- ${s.claims.get(m)?.state ?? '?'}${m === c.id ? ' (this Claim)' : ''}`, m]),
    '',
    `GATE OBSERVATIONS (${c.observations.length})`,
    ...c.observations.map(safe),
  ];
}

function graphLines(s: Snapshot, id: string): string[] {
  const g = s.graphs.find((x) => x.id === id);
  if (g === undefined) return [`graph ${quoted(id)} is no longer in the ledger`];
  const counts = new Map<string, number>();
  for (const w of g.works) {
    const state = s.works.get(w)?.state ?? '?';
    counts.set(state, (counts.get(state) ?? 0) + 1);
  }
  return [
    'GRAPH',
    field('graph_id', quoted(id)),
    field('work', g.works.length),
    ...[...counts].sort().map(([k, n]) => field(`  ${k}`, n)),
    '',
    'The tree groups graph membership and Claim attempts; dependencies appear in each Work\'s details.',
  ];
}

/** Unwrapped detail lines for a row key. */
export function detailLines(s: Snapshot | null, key: string | null): string[] {
  if (s === null) return ['(no queue read yet)'];
  const k = key === null ? null : parseKey(key);
  if (k === null) return ['(nothing selected)'];
  if (k.kind === 'graph') return graphLines(s, k.id);
  if (k.kind === 'work') {
    const w = s.works.get(k.id);
    return w === undefined ? [`Work ${k.id} is no longer in the ledger`] : workLines(s, w);
  }
  const c = s.claims.get(k.id);
  return c === undefined ? [`Claim ${k.id} is no longer in the ledger`] : claimLines(s, c);
}

let memo: { s: Snapshot | null; key: string | null; width: number; lines: string[] } | null = null;

/** Detail lines wrapped to the details pane width (what scrolls). */
export function wrappedDetails(s: Snapshot | null, key: string | null, width: number): string[] {
  if (memo !== null && memo.s === s && memo.key === key && memo.width === width) return memo.lines;
  const lines = wrap(detailLines(s, key).flatMap((l) => l.split('\n')), width);
  memo = { s, key, width, lines };
  return lines;
}
