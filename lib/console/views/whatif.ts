/**
 * The fairness what-if panel (issue 5 §2 `/fairness`): the engine simulator
 * (`engine/scheduler/simulate.ts`: the real packer over a synthetic state) run
 * on the pool's current ready backlog, once with the installed settings and
 * once with the proposal. Both start from fresh clocks, as a new policy epoch
 * does (spec 7.10), so the difference is the settings alone.
 */
import { z } from 'zod';
import { ownRecord } from '../../../engine/schema/record.ts';
import type { JsonObject } from '../../../engine/json.ts';
import type { Projection } from '../../../engine/replay/index.ts';
import { installedPolicy } from '../../../engine/scheduler/policy-view.ts';
import { simulate, type SimulationResult, type WorkloadNode } from '../../../engine/scheduler/simulate.ts';
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
});
export type WhatIfRequest = z.infer<typeof WhatIfRequestSchema>;

export interface WhatIfResult {
  pool: string;
  backlog: WorkloadNode[];
  current: SimulationResult;
  proposal: SimulationResult;
  /** Decisions (0-based) whose grant differs between the two runs. */
  changed: number[];
}

/** The installed scheduling economics, as editable settings. */
export function currentSettings(projection: Projection): WhatIfSettings {
  const p = installedPolicy(projection.state);
  return { mode: p.mode, class_weights: [...p.class_weights], accounting_weights: { ...p.accounting_weights } };
}

/** Ready (eligible) Work of `pool` at `asOf`, counted per (priority, key). */
export function readyBacklog(projection: Projection, pool: string, asOf: number): WorkloadNode[] {
  const counts = new Map<string, WorkloadNode>();
  for (const work of projection.works()) {
    if (work.pool !== pool || work.state !== 'available') continue;
    if (workStatus(projection.state, work, asOf).readiness !== 'ready') continue;
    const id = `${work.effectivePriority}\u0000${work.fairnessKey}`;
    const node = counts.get(id) ?? { key: work.fairnessKey, priority: work.effectivePriority, count: 0 };
    node.count += 1;
    counts.set(id, node);
  }
  return [...counts.values()].sort((a, b) => a.priority - b.priority || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export function whatIf(projection: Projection, asOf: number, request: WhatIfRequest): WhatIfResult {
  const backlog = readyBacklog(projection, request.pool, asOf);
  const workload = { nodes: backlog, events: [] };
  const current = simulate(currentSettings(projection) as unknown as JsonObject, workload, request.grants);
  const proposal = simulate(request.settings as unknown as JsonObject, workload, request.grants);
  const changed: number[] = [];
  const n = Math.max(current.grants.length, proposal.grants.length);
  for (let i = 0; i < n; i++) {
    const a = current.grants[i];
    const b = proposal.grants[i];
    if (a?.key !== b?.key || a?.priority !== b?.priority) changed.push(i);
  }
  return { pool: request.pool, backlog, current, proposal, changed };
}
