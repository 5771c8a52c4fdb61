/**
 * The fairness what-if panel (docs/console.md "Pages" `/fairness`): the engine simulator
 * (`engine/scheduler/simulate.ts`: the real packer over a synthetic state) run
 * on the pool's current ready backlog, once with the installed settings and
 * once with the proposal.
 *
 * Baseline `live` (default, docs/console.md "Pages", `/fairness`): both runs are the real selector run
 * forward on the live fairness clocks and active sets (`predictLine`), so the
 * installed run's first grants are exactly `explain`'s next picks; the
 * proposal runs on the same clocks with its weights (passes rescaled to its
 * tick scale when that differs). Baseline `fresh`: both start from fresh
 * clocks, as a new Policy epoch does (spec 7.10), so the difference is the
 * settings alone.
 */
import { z } from 'zod';
import { ownRecord } from '../../../engine/schema/record.ts';
import type { JsonObject } from '../../../engine/json.ts';
import type { Projection } from '../../../engine/replay/index.ts';
import { predictLine } from '../../../engine/scheduler/line.ts';
import { installedPolicy } from '../../../engine/scheduler/policy-view.ts';
import { withEconomics } from '../../../engine/replay/what-if.ts';
import { simulate, type SimulationResult, type SimulationShare } from '../../../engine/scheduler/simulate.ts';
import type { WorkloadNode } from '../../../engine/scheduler/workload.ts';
import { workStatus } from './status.ts';

export const MAX_WHATIF_GRANTS = 500;

const Weight = z.number().int().min(1).max(1000);
export const WhatIfSettingsSchema = z.strictObject({
  mode: z.enum(['weighted-priority', 'strict-priority']),
  class_weights: z.array(Weight).length(5),
  accounting_weights: ownRecord(z.string().max(128), Weight),
});
export type WhatIfSettings = z.infer<typeof WhatIfSettingsSchema>;

export const WhatIfRequestSchema = z.strictObject({
  pool: z.string().min(1).max(256),
  at: z.string().max(256).nullable().optional(),
  grants: z.number().int().min(1).max(MAX_WHATIF_GRANTS),
  settings: WhatIfSettingsSchema,
  /** `live`: from the live clocks (default); `fresh`: from fresh clocks, as a new Policy epoch would. */
  baseline: z.enum(['live', 'fresh']).optional(),
});
export type WhatIfRequest = z.infer<typeof WhatIfRequestSchema>;

export interface WhatIfResult {
  pool: string;
  baseline: 'live' | 'fresh';
  /** Live baseline: the proposal's tick scale differs, so the live passes were rescaled to it. */
  rescaled: boolean;
  backlog: WorkloadNode[];
  current: SimulationResult;
  proposal: SimulationResult;
  /** Decisions (0-based) whose grant differs between the two runs. */
  changed: number[];
}

/** The installed scheduling economics, as editable settings. */
export function currentSettings(projection: Projection): WhatIfSettings {
  const p = installedPolicy(projection);
  return { mode: p.mode, class_weights: [...p.class_weights], accounting_weights: { ...p.accounting_weights } };
}

/** Ready (eligible) Work of `pool` at `asOf`, counted per (priority, key). */
export function readyBacklog(projection: Projection, pool: string, asOf: number): WorkloadNode[] {
  const counts = new Map<string, WorkloadNode>();
  for (const work of projection.works()) {
    if (work.pool !== pool || work.state !== 'available') continue;
    if (workStatus(projection, work, asOf).readiness !== 'ready') continue;
    const id = `${work.effectivePriority}\u0000${work.fairnessKey}`;
    const node = counts.get(id) ?? { key: work.fairnessKey, priority: work.effectivePriority, count: 0 };
    node.count += 1;
    counts.set(id, node);
  }
  return [...counts.values()].sort((a, b) => a.priority - b.priority || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Shares of a predicted grant list (key rows: within the class; target over the keys ready in the class). */
function lineShares(grants: Array<{ priority: number; key: string }>, backlog: WorkloadNode[], settings: WhatIfSettings): SimulationShare[] {
  const weight = (k: string) => settings.accounting_weights[k] ?? 1;
  const rows: SimulationShare[] = [];
  for (const priority of [...new Set(backlog.map((b) => b.priority))].sort((a, b) => a - b)) {
    const keys = backlog.filter((b) => b.priority === priority).map((b) => b.key);
    const total = keys.reduce((n, k) => n + weight(k), 0);
    const inClass = grants.filter((g) => g.priority === priority).length;
    for (const key of keys) {
      const n = grants.filter((g) => g.priority === priority && g.key === key).length;
      rows.push({ level: 'key', priority, key, weight: weight(key), grants: n, target_share: weight(key) / total, actual_share: inClass === 0 ? 0 : n / inClass, max_prefix_deviation: 0, longest_zero_service: 0 });
    }
  }
  return rows;
}

function liveRun(projection: Projection, pool: string, asOf: number, grants: number, settings: WhatIfSettings, backlog: WorkloadNode[]): SimulationResult {
  const line = predictLine(projection, pool, asOf, grants);
  const list = line.entries.map((e) => ({ priority: e.priority, key: e.fairness_key }));
  return {
    mode: projection.fairness.mode,
    requested: grants,
    grants: list,
    shares: lineShares(list, backlog, settings),
    stopped: line.end === 'no_work' || line.end === 'no_eligible_work' ? line.end : null,
  };
}

function sameSettings(a: WhatIfSettings, b: WhatIfSettings): boolean {
  const keys = (s: WhatIfSettings) => JSON.stringify(Object.entries(s.accounting_weights).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  return a.mode === b.mode && a.class_weights.join() === b.class_weights.join() && keys(a) === keys(b);
}

export function whatIf(projection: Projection, asOf: number, request: WhatIfRequest): WhatIfResult {
  const backlog = readyBacklog(projection, request.pool, asOf);
  const installed = currentSettings(projection);
  const baseline = request.baseline ?? 'live';
  let current: SimulationResult;
  let proposal: SimulationResult;
  let rescaled = false;
  if (baseline === 'live') {
    current = liveRun(projection, request.pool, asOf, request.grants, installed, backlog);
    if (sameSettings(installed, request.settings)) proposal = current;
    else {
      const proposed = withEconomics(projection, request.settings);
      rescaled = proposed.rescaled;
      proposal = liveRun(proposed.projection, request.pool, asOf, request.grants, request.settings, backlog);
    }
  } else {
    const workload = { nodes: backlog, events: [] };
    current = simulate(installed as unknown as JsonObject, workload, request.grants);
    proposal = simulate(request.settings as unknown as JsonObject, workload, request.grants);
  }
  const changed: number[] = [];
  const n = Math.max(current.grants.length, proposal.grants.length);
  for (let i = 0; i < n; i++) {
    const a = current.grants[i];
    const b = proposal.grants[i];
    if (a?.key !== b?.key || a?.priority !== b?.priority) changed.push(i);
  }
  return { pool: request.pool, baseline, rescaled, backlog, current, proposal, changed };
}
