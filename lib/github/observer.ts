/**
 * Gate refresh (spec 7.16 "Observations in the same transaction log", 7.17): reads the
 * candidate gates of a pool within the refresh budget (contract fixture
 * observation-refresh-budget.json), one read per resource even when several conditions
 * share it, only for repositories on the pool's allowlist, and normalizes each into an
 * Observation bound to the current credential generation. Unchanged non-satisfying
 * results are not written again. Reading uses its own credential, separate from queue
 * publication (contract `provenance.foreign_dependencies`).
 */
import type { JsonObject } from '../../engine/json.ts';
import { candidateGates, isRedundant, observationOperation, refreshBudget, type GateFacts, type GateTarget } from '../../engine/lifecycle/observations.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { GitHubApi } from './api.ts';
import { readResource, type RepositoryReads } from './resources.ts';
import { ownGet } from '../../engine/schema/record.ts';
import { installedPolicy } from '../../engine/scheduler/policy-view.ts';

export interface RefreshInput {
  api: GitHubApi;
  projection: Projection;
  pool: string;
  /** Trusted observation time (ms). */
  at: number;
  /** Requested refresh count (contract default 128). */
  requested?: number;
}

export interface RefreshReport {
  /** Observation operations to publish, in gate order. */
  operations: JsonObject[];
  budget: number;
  candidates: number;
  /** Distinct resources read over the network. */
  reads: number;
  skipped: Array<{ gate: string; reason: 'budget' | 'unchanged' }>;
}

function resourceKey(t: GateTarget): string {
  const r = t.edge.resource;
  return `${r.host}\u0000${r.kind}\u0000${r.repository_id}\u0000${r.resource_id}`;
}

export async function refreshGates(input: RefreshInput): Promise<RefreshReport> {
  const { projection } = input;
  const policy = installedPolicy(projection);
  const budget = refreshBudget({
    operations: policy.limits.operations,
    ledgerBytes: input.projection.validatedLength,
    ledgerLimit: policy.limits.ledger_bytes,
    grantsPaused: projection.controls.grants_paused,
    ...(input.requested === undefined ? {} : { requested: input.requested }),
  });
  const allowed = new Set(ownGet(policy.pools, input.pool)?.allowed_repositories ?? []);
  const targets = candidateGates(projection, input.pool, input.at);
  const report: RefreshReport = { operations: [], budget, candidates: targets.length, reads: 0, skipped: [] };
  const reads = new Map<string, Promise<GateFacts>>();
  const repositories: RepositoryReads = new Map();
  for (const [i, target] of targets.entries()) {
    if (i >= budget) {
      report.skipped.push({ gate: target.gate, reason: 'budget' });
      continue;
    }
    let facts: Promise<GateFacts>;
    if (!allowed.has(target.edge.resource.repository)) facts = Promise.resolve({ read_status: 'not_allowed' });
    else {
      const key = resourceKey(target);
      facts = reads.get(key) ?? readResource(input.api, target.edge.resource, repositories);
      if (!reads.has(key)) report.reads += 1;
      reads.set(key, facts);
    }
    const op = observationOperation(target, await facts, input.at, projection.controls.credential_generation);
    if (isRedundant(projection, target, op)) report.skipped.push({ gate: target.gate, reason: 'unchanged' });
    else report.operations.push(op);
  }
  return report;
}
