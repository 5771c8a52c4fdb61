/**
 * `fairway simulate` core (docs INTERFACES): replays a synthetic backlog of
 * (priority, fairness key) Work through the same clocks as real grants
 * (`planPick` + `applyTransition`, spec 7.5). Every grant is assumed packable;
 * pausing a key makes it ineligible, so it re-enters with the clamp.
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import { applyTransition, createFairnessState, planPick } from './clocks.ts';
import { numericCompare, utf8Compare } from './order.ts';

export interface WorkloadNode {
  key: string;
  priority: number;
  count: number;
}

export type WorkloadEvent =
  | { after_grants: number; admit: WorkloadNode }
  | { after_grants: number; pause_key: string }
  | { after_grants: number; resume_key: string };

export interface Workload {
  nodes: WorkloadNode[];
  events?: WorkloadEvent[];
}

export interface SimulationShare {
  priority: number;
  key: string;
  grants: number;
  /** grants / total grants. */
  share: number;
}

export interface SimulationResult {
  grants: { priority: number; key: string }[];
  shares: SimulationShare[];
  /** Why the run ended before `grants` decisions, if it did. */
  stopped: 'no_eligible_work' | null;
}

export const MAX_SIMULATED_GRANTS = 1_000_000;
const POOL = 'simulation';

function check(ok: boolean, message: string): void {
  if (!ok) fail('simulation_invalid', message);
}

function validNode(node: WorkloadNode, where: string): void {
  check(typeof node.key === 'string', `${where}.key must be a string`);
  check(Number.isSafeInteger(node.priority) && node.priority >= 1 && node.priority <= 5, `${where}.priority must be 1..5`);
  check(Number.isSafeInteger(node.count) && node.count >= 0, `${where}.count must be a nonnegative integer`);
}

/**
 * Run `grants` decisions. `settings` holds `mode`, `class_weights` and
 * `accounting_weights` (aw.json `work_queue` / QueuePolicy names).
 */
export function simulate(settings: JsonObject, workload: Workload, grants: number): SimulationResult {
  check(Number.isSafeInteger(grants) && grants >= 0 && grants <= MAX_SIMULATED_GRANTS, `grants must be 0..${MAX_SIMULATED_GRANTS}`);
  const fairness = createFairnessState(settings, 'simulation');
  const backlog = new Map<number, Map<string, number>>();
  const admit = (node: WorkloadNode): void => {
    let keys = backlog.get(node.priority);
    if (keys === undefined) backlog.set(node.priority, (keys = new Map()));
    keys.set(node.key, (keys.get(node.key) ?? 0) + node.count);
  };
  workload.nodes.forEach((node, i) => {
    validNode(node, `nodes[${i}]`);
    admit(node);
  });
  const events = [...(workload.events ?? [])];
  events.forEach((e, i) => {
    check(Number.isSafeInteger(e.after_grants) && e.after_grants >= 0, `events[${i}].after_grants must be a nonnegative integer`);
    if ('admit' in e) validNode(e.admit, `events[${i}].admit`);
  });
  events.sort((a, b) => a.after_grants - b.after_grants); // stable: file order within one point
  const paused = new Set<string>();
  const granted: { priority: number; key: string }[] = [];
  const tally = new Map<string, SimulationShare>();
  let nextEvent = 0;
  let stopped: SimulationResult['stopped'] = null;
  while (granted.length < grants) {
    while (nextEvent < events.length && events[nextEvent]!.after_grants <= granted.length) {
      const e = events[nextEvent++]!;
      if ('admit' in e) admit(e.admit);
      else if ('pause_key' in e) paused.add(e.pause_key);
      else paused.delete(e.resume_key);
    }
    const eligible = new Map<number, string[]>();
    for (const [priority, keys] of backlog) {
      const ready = [...keys].filter(([key, n]) => n > 0 && !paused.has(key)).map(([key]) => key);
      if (ready.length > 0) eligible.set(priority, ready);
    }
    const transition = planPick(fairness, POOL, eligible);
    if (transition === null) {
      stopped = 'no_eligible_work';
      break;
    }
    applyTransition(fairness, transition);
    const { priority, fairnessKey: key } = transition;
    const keys = backlog.get(priority)!;
    keys.set(key, keys.get(key)! - 1);
    granted.push({ priority, key });
    const id = `${priority}\u0000${key}`;
    const row = tally.get(id) ?? { priority, key, grants: 0, share: 0 };
    row.grants++;
    tally.set(id, row);
  }
  const shares = [...tally.values()]
    .map((row) => ({ ...row, share: row.grants / granted.length }))
    .sort((a, b) => numericCompare(a.priority, b.priority) || utf8Compare(a.key, b.key));
  return { grants: granted, shares, stopped };
}
