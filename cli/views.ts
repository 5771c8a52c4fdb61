/**
 * Plain-data views over a projection for the CLI (metadata only: payloads,
 * receipts and submitted text are never printed except as escaped ids).
 */
import { fail } from '../engine/errors.ts';
import type { Projection } from '../engine/replay/index.ts';
import type { WorkRecord } from '../engine/replay/state.ts';
import { parseQueueCommit } from '../engine/schema/index.ts';
import { eligibility } from '../engine/scheduler/eligibility.ts';

export function statsView(p: Projection, asOf: number) {
  const { state } = p;
  const pools = new Map<string, { available: number; eligible: number; claimed: number; backlog: Map<string, number> }>();
  for (const w of p.works()) {
    let pool = pools.get(w.pool);
    if (pool === undefined) pools.set(w.pool, (pool = { available: 0, eligible: 0, claimed: 0, backlog: new Map() }));
    if (w.state === 'claimed') pool.claimed += 1;
    if (w.state !== 'available') continue;
    pool.available += 1;
    if (eligibility(state, w, asOf).eligible) pool.eligible += 1;
    const key = `${w.effectivePriority}\u0000${w.fairnessKey}`;
    pool.backlog.set(key, (pool.backlog.get(key) ?? 0) + 1);
  }
  const policyPools = (state.policy?.policy.pools ?? {}) as Record<string, { logical_limit?: number; native_limit?: number }>;
  return {
    tip: p.tip,
    commits: p.commitCount,
    policy_epoch: p.policyEpoch,
    as_of: asOf,
    controls: { ...state.controls },
    envelope: p.envelope(),
    pools: [...pools].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, v]) => ({
      pool: name,
      available: v.available,
      eligible: v.eligible,
      claimed: v.claimed,
      logical_outstanding: state.outstandingClaims.get(name) ?? 0,
      logical_limit: policyPools[name]?.logical_limit ?? null,
      native_outstanding: state.outstandingNative.get(name) ?? 0,
      native_limit: policyPools[name]?.native_limit ?? null,
      backlog: [...v.backlog].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => {
        const [priority, key] = k.split('\u0000');
        return { priority: Number(priority), fairness_key: key!, available: n };
      }),
    })),
  };
}

function matches(w: WorkRecord, search: string): boolean {
  const needle = search.toLowerCase();
  return [w.workId, w.graphId, w.nodeKey, w.pool, w.fairnessKey, w.state, ...w.claims].some((s) => s.toLowerCase().includes(needle));
}

export function treeRows(p: Projection, o: { graph?: string; pool?: string; state?: string; search?: string; offset: number; limit: number }) {
  const rows: Array<{ depth: number; kind: string; id: string; label: string }> = [];
  const graphs = [...p.state.graphs.keys()].sort();
  for (const graphId of graphs) {
    if (o.graph !== undefined && graphId !== o.graph) continue;
    const works = p.state.graphs.get(graphId)!.map((id) => p.work(id)!).filter((w) =>
      (o.pool === undefined || w.pool === o.pool) && (o.state === undefined || w.state === o.state) && (o.search === undefined || matches(w, o.search)));
    if (works.length === 0) continue;
    rows.push({ depth: 0, kind: 'graph', id: graphId, label: `graph ${JSON.stringify(graphId)} (${works.length} Work)` });
    for (const w of works) {
      rows.push({ depth: 1, kind: 'work', id: w.workId, label: `${w.state.padEnd(9)} P${w.effectivePriority} ${JSON.stringify(w.nodeKey)} key=${JSON.stringify(w.fairnessKey)} ${w.workId.slice(0, 12)}${w.barrier === 'none' ? '' : ` barrier=${w.barrier}`}` });
      for (const c of w.claims) {
        const claim = p.claim(c)!;
        rows.push({ depth: 2, kind: 'claim', id: c, label: `claim ${claim.state.padEnd(9)} ${claim.dispatchId.slice(0, 14)}…/${claim.handle} ${c.slice(-12)}` });
      }
    }
  }
  const page = rows.slice(o.offset, o.offset + o.limit);
  return { total: rows.length, offset: o.offset, limit: o.limit, next_offset: o.offset + page.length < rows.length ? o.offset + page.length : null, rows: page };
}

export function workDetail(p: Projection, id: string, asOf: number) {
  const w = p.work(id);
  if (w === undefined) fail('unknown_work', `Work ${id} is not in the ledger`);
  const verdict = w.state === 'available' ? eligibility(p.state, w, asOf) : null;
  return {
    work_id: w.workId,
    graph_id: w.graphId,
    node_key: w.nodeKey,
    pool: w.pool,
    worker_profile: w.workerProfile,
    priority: w.priority,
    effective_priority: w.effectivePriority,
    fairness_key: w.fairnessKey,
    state: w.state,
    barrier: w.barrier,
    readiness: verdict === null ? w.state : verdict.eligible ? 'ready' : verdict.reason,
    blocking_path: verdict !== null && !verdict.eligible ? verdict.blockingPath : [],
    position: w.position,
    depends_on: w.dependsOn,
    successors: p.state.successors.get(w.workId) ?? [],
    attempts: w.attempts,
    retry_not_before: w.retryNotBefore,
    claims: w.claims.map((c) => ({ claim_id: c, state: p.claim(c)!.state, dispatch_id: p.claim(c)!.dispatchId })),
    admitted_in: w.admittedCommit,
    completion: w.completionCommit,
    result: w.resultCommit,
    delivery_failure: w.deliveryFailureCommit,
    cancellation: w.cancellationCommit,
    touched_by: w.touchedBy,
  };
}

export function claimDetail(p: Projection, id: string) {
  const c = p.claim(id);
  if (c === undefined) fail('unknown_claim', `Claim ${id} is not in the ledger`);
  const g = p.dispatch(c.dispatchId)!;
  return {
    claim_id: c.claimId,
    work_id: c.workId,
    state: c.state,
    handle: c.handle,
    request_id: c.requestId,
    granted_in: c.commitId,
    position: c.position,
    charged: { priority: c.priority, fairness_key: c.fairnessKey },
    observations: c.observations,
    terminal_commit: c.terminalCommitId,
    retry_not_before: c.retryNotBefore,
    dispatch: { dispatch_id: g.dispatchId, members: g.claimIds, state: g.state, run: g.run, released: g.released, release_commit: g.releaseCommit, profile: g.workerProfile },
  };
}

export function traceView(p: Projection, sel: { requestId?: string; claimId?: string }, offset: number, limit: number) {
  const { state } = p;
  let relevant: (text: string) => boolean;
  if (sel.requestId !== undefined) {
    const r = p.request(sel.requestId);
    if (r === undefined) fail('unknown_request', `request ${sel.requestId} is not committed`);
    const claims = new Set(r.claimIds);
    const groups = new Set(r.claimIds.map((c) => p.claim(c)!.dispatchId));
    relevant = (t) => t.includes(sel.requestId!) || [...claims, ...groups].some((x) => t.includes(x));
  } else {
    const c = p.claim(sel.claimId!);
    if (c === undefined) fail('unknown_claim', `Claim ${sel.claimId} is not in the ledger`);
    relevant = (t) => t.includes(c.claimId) || t.includes(c.dispatchId);
  }
  const events: Array<{ ordinal: number; commit_id: string; kind: string; at: number; role: string; summary: string }> = [];
  for (const info of state.commits) {
    const text = p.commitText(info.id)!;
    if (!relevant(text)) continue;
    const commit = parseQueueCommit(JSON.parse(text));
    const kinds = [...new Set(commit.operations.map((op) => op.kind))].join('+');
    events.push({ ordinal: info.ordinal, commit_id: info.id, kind: info.kind, at: info.at, role: info.role, summary: `${kinds} (${commit.operations.length} ops)` });
  }
  return { total: events.length, offset, limit, events: events.slice(offset, offset + limit) };
}
