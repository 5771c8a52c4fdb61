/**
 * A small real queue for the TUI tests, built through the engine's request
 * builders and replayed cold: an `sdk` graph with Work and Issue dependencies,
 * a 30-task `backlog` graph, three grants (two Claims still open, one
 * cancelled), and helpers to drive the reducer with key names.
 */
import type { JsonObject } from '../../engine/json.ts';
import { replayLedger, type Projection } from '../../engine/replay/index.ts';
import { cancelClaimsRequest } from '../../engine/requests/admin.ts';
import { dispatchBound, dispatchStarted, release, result } from '../../engine/requests/lifecycle.ts';
import { bootstrapRequest, finishRequest, submitRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import { LedgerWriter, defaultPolicy } from '../../engine/requests/writer.ts';
import type { Actor } from '../../engine/schema/index.ts';
import type { Authority } from '../../cli/tui/dialog.ts';
import { buildSnapshot, type Snapshot } from '../../cli/tui/model.ts';
import { reduce } from '../../cli/tui/reducer.ts';
import { initialState, type Effect, type KeyPress, type TuiState } from '../../cli/tui/state.ts';

export const REPOSITORY = 'acme/app';
export const T0 = Date.UTC(2026, 0, 1);
export const SECRET = 'PAYLOAD-NEVER-SHOWN';

const producer: Actor = { role: 'producer', principal: '1001', repository: REPOSITORY };
const admin: Actor = { role: 'administrator', principal: '1001', repository: REPOSITORY };
const dispatcher: Actor = { role: 'dispatcher', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '5001', run_attempt: 1 };

export const ISSUE = { host: 'github.com', kind: 'issue', number: '7', repository: REPOSITORY, repository_id: '1', resource_id: '100007' };

export function buildQueue(): { projection: Projection; writer: LedgerWriter } {
  const w = new LedgerWriter();
  const sdk: SubmitNode[] = [
    { node_key: 'inspect', payload: { secret: SECRET }, priority: 2 },
    { node_key: 'code', payload: {}, depends_on: [{ kind: 'work', node_key: 'inspect' }] },
    { node_key: 'docs', payload: {}, depends_on: [{ kind: 'work', node_key: 'inspect' }, { kind: 'issue', condition: 'completed', resource: ISSUE as JsonObject }] },
    { node_key: 'lint', payload: {}, priority: 1 },
    { node_key: 'w\u00e9ird\u009b[31m', payload: {}, priority: 1 },
  ];
  w.publish('boot', producer, T0, bootstrapRequest(defaultPolicy({ repository: REPOSITORY, principal: '1001' }), 'e1', sdk, { graphId: 'sdk', at: T0 }));
  const backlog = Array.from({ length: 30 }, (_, i) => ({ node_key: `Task-${String(i + 1).padStart(2, '0')}`, payload: { secret: SECRET } }));
  w.publish('backlog', producer, T0 + 1000, submitRequest(w.state, backlog, { graphId: 'backlog', at: T0 + 1000 }));
  const grant = w.dispatchNext('grant-1', dispatcher, T0 + 2000, { pool: 'default', max_claims: 3, max_dispatches: 3, max_bytes: 49152 });
  const claims = grant.built.plan.claims.map((c) => String((c as unknown as { claim_id: string }).claim_id));
  w.publish('cancel-1', admin, T0 + 3000, cancelClaimsRequest(w.state, [claims[2]!], 'operator_cancelled'));
  return { projection: replayLedger(w.text()), writer: w };
}

/** A one-graph queue of these nodes, admitted by the first submission and replayed cold. */
export function queueOf(nodes: SubmitNode[], graphId = 'g'): Snapshot {
  const w = new LedgerWriter();
  w.publish('boot', producer, T0, bootstrapRequest(defaultPolicy({ repository: REPOSITORY, principal: '1001' }), 'e1', nodes, { graphId, at: T0 }));
  return buildSnapshot(replayLedger(w.text()), T0 + 5000);
}

export const RECEIPT = 'RECEIPT-BODY-NEVER-SHOWN';

/**
 * One Work run to the end: granted, started, bound to a run, finished, its Result recorded with
 * a descriptor (SECRET) and a delivery receipt (RECEIPT), and its reservation released; plus a
 * Work waiting on a merged pull request gate.
 */
export function completedQueue(): Snapshot {
  const w = new LedgerWriter();
  const reconciler: Actor = { role: 'reconciler', principal: '1001', repository: REPOSITORY };
  const pr = { ...ISSUE, kind: 'pull_request', number: '12', resource_id: '200012' };
  w.publish('boot', producer, T0, bootstrapRequest(defaultPolicy({ repository: REPOSITORY, principal: '1001' }), 'e1', [
    { node_key: 'build', payload: { secret: SECRET } },
    { node_key: 'ship', payload: {}, depends_on: [{ kind: 'work', node_key: 'build' }, { kind: 'pull_request', condition: 'merged', resource: pr as JsonObject }] },
  ], { graphId: 'release', at: T0 }));
  const { built } = w.dispatchNext('grant-1', dispatcher, T0 + 1000, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 });
  const { dispatch_id: dispatchId, work_id: workId } = built.plan.claims[0]!;
  w.publish('start-1', dispatcher, T0 + 2000, dispatchStarted(dispatchId, dispatcher as unknown as JsonObject));
  w.publish('bind-1', reconciler, T0 + 3000, dispatchBound(w.state, dispatchId, '9001', T0 + 3000));
  const worker: Actor = { role: 'worker', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/worker.lock.yml', run_id: '9001', run_attempt: 1, dispatch_id: dispatchId, claim_handle: 'h1' };
  w.publish('finish-1', worker, T0 + 4000, finishRequest(w.state, { dispatch_id: dispatchId, claim_handle: 'h1', outcome: 'completed' }, T0 + 4000));
  w.publish('result-1', reconciler, T0 + 5000, result(w.state, workId, { summary: SECRET }, T0 + 5000, RECEIPT));
  w.publish('release-1', reconciler, T0 + 6000, release(w.state, dispatchId, T0 + 6000));
  return buildSnapshot(replayLedger(w.text()), T0 + 7000);
}

let cached: Snapshot | null = null;
export function snapshot(): Snapshot {
  cached ??= buildSnapshot(buildQueue().projection, T0 + 5000);
  return cached;
}

export const AUTHORITY: Authority = { principal: '1', source: 'git:/tmp/q#work-queue', writable: true, basis: 'local principal, unauthenticated' };

export function fresh(o: { columns?: number; rows?: number; authority?: Authority; snap?: Snapshot | null } = {}): TuiState {
  const s = initialState({ session: 'sess', now: T0 + 5000, viewport: { columns: o.columns ?? 120, rows: o.rows ?? 30 }, authority: o.authority ?? AUTHORITY });
  const snap = o.snap === undefined ? snapshot() : o.snap;
  return snap === null ? s : reduce(s, { type: 'loaded', snapshot: snap }).state;
}

const NAMES = new Set(['up', 'down', 'left', 'right', 'pageup', 'pagedown', 'home', 'end', 'tab', 'enter', 'escape', 'backspace']);

/** Key names ('down', 'tab', ...) or text (each character one key press). */
export function keys(...names: string[]): KeyPress[] {
  return names.flatMap((n) => (NAMES.has(n) ? [{ name: n as KeyPress['name'] }] : [...n].map((char) => ({ name: 'char' as const, char }))));
}

export function press(s: TuiState, ...names: string[]): { state: TuiState; effects: Effect[] } {
  const effects: Effect[] = [];
  for (const key of keys(...names)) {
    const r = reduce(s, { type: 'key', key });
    s = r.state;
    effects.push(...r.effects);
  }
  return { state: s, effects };
}

/** Moves the cursor to the row with this key (by pressing j/k). */
export function goTo(s: TuiState, key: string, rows: Array<{ key: string }>): TuiState {
  const target = rows.findIndex((r) => r.key === key);
  if (target < 0) throw new Error(`no row ${key}`);
  const delta = target - s.cursor;
  return press(s, (delta > 0 ? 'j' : 'k').repeat(Math.abs(delta))).state;
}

export function workByKey(snap: Snapshot, nodeKey: string) {
  const w = [...snap.works.values()].find((x) => x.nodeKey === nodeKey);
  if (w === undefined) throw new Error(`no Work ${nodeKey}`);
  return w;
}
