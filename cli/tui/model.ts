/**
 * The TUI's read model: a plain, immutable copy of the metadata the keyboard
 * browser shows, taken from a projection at one read. The projection itself is
 * extended in place by later reads and publications, so nothing here keeps a
 * reference to it. Payloads, receipts and run evidence bodies are never copied.
 */
import type { Projection } from '../../engine/replay/index.ts';
import type { DependencyEdge } from '../../engine/state/state.ts';
import { gateIdentity, type BlockingStep } from '../../engine/scheduler/eligibility.ts';
import { claimDetail, workDetail } from '../views.ts';
import { safe } from './layout.ts';

export type WorkRef = { kind: 'work'; workId: string; nodeKey: string | null; graphId: string | null; state: string | null };
export type GateRef = {
  kind: 'issue' | 'pull_request';
  condition: string;
  host: string;
  repository: string;
  number: string;
  repositoryId: string;
  resourceId: string;
  /** Latest recorded observation of this gate, if any. */
  observation: { id: string; state: string; observedAt: number } | null;
};
export type DependencyRef = WorkRef | GateRef;

export interface WorkItem {
  id: string;
  graphId: string;
  nodeKey: string;
  pool: string;
  workerProfile: string;
  state: string;
  barrier: string;
  readiness: string;
  blockingPath: BlockingStep[];
  priority: number;
  effectivePriority: number;
  fairnessKey: string;
  position: { ordinal: number; operation: number };
  attempts: number;
  retryNotBefore: number | null;
  currentClaim: string | null;
  claims: string[];
  dependsOn: DependencyRef[];
  successors: WorkRef[];
  admittedIn: string;
  completion: string | null;
  result: string | null;
  deliveryFailure: string | null;
  cancellation: string | null;
  /** Lower-cased ids and metadata for the case-insensitive search (searchText). */
  search: string;
}

export interface ClaimItem {
  id: string;
  workId: string;
  state: string;
  handle: string;
  requestId: string;
  grantedIn: string;
  position: { ordinal: number; operation: number };
  priority: number;
  fairnessKey: string;
  observations: string[];
  terminalCommit: string | null;
  retryNotBefore: number | null;
  dispatch: { id: string; state: string; members: string[]; released: boolean; releaseCommit: string | null; profile: string; runBound: boolean };
  search: string;
}

export interface Snapshot {
  tip: string | null;
  commits: number;
  policyEpoch: string | null;
  repository: string | null;
  controls: { admission_paused: boolean; grants_paused: boolean };
  /** Graphs in id order, each with its Work ids in admission order. */
  graphs: Array<{ id: string; works: string[] }>;
  works: ReadonlyMap<string, WorkItem>;
  claims: ReadonlyMap<string, ClaimItem>;
  /** When this read completed (ms). */
  readAt: number;
  /** Request ids the caller asked about that are committed: request id → commit id. */
  committedRequests: Readonly<Record<string, string>>;
}

/**
 * The case-insensitive search text of some fields: each as stored and, when the screen shows
 * it otherwise (non-ASCII as \u escapes, layout.ts `safe`), also as shown, so what the operator
 * reads on the screen is what they can type.
 */
function searchText(fields: readonly string[]): string {
  return fields.flatMap((f) => {
    const shown = safe(f);
    return shown === f ? [f] : [f, shown];
  }).join('\n').toLowerCase();
}

function workRef(p: Projection, id: string): WorkRef {
  const w = p.work(id);
  return { kind: 'work', workId: id, nodeKey: w?.nodeKey ?? null, graphId: w?.graphId ?? null, state: w?.state ?? null };
}

function dependencyRef(p: Projection, edge: DependencyEdge): DependencyRef {
  if (edge.kind === 'work') return workRef(p, edge.work_id);
  const r = edge.resource;
  const o = p.observation(gateIdentity(edge));
  return {
    kind: edge.kind,
    condition: edge.condition,
    host: r.host,
    repository: r.repository,
    number: r.number,
    repositoryId: r.repository_id,
    resourceId: r.resource_id,
    observation: o === undefined ? null : { id: o.observationId, state: o.state, observedAt: o.observedAt },
  };
}

/** Copies what the browser shows out of `p` (read at `now`); `watch`: request ids to resolve. */
export function buildSnapshot(p: Projection, now: number, watch: readonly string[] = []): Snapshot {
  const works = new Map<string, WorkItem>();
  const claims = new Map<string, ClaimItem>();
  for (const record of p.works()) {
    const d = workDetail(p, record.workId, now);
    works.set(d.work_id, {
      id: d.work_id,
      graphId: d.graph_id,
      nodeKey: d.node_key,
      pool: d.pool,
      workerProfile: d.worker_profile,
      state: d.state,
      barrier: d.barrier,
      readiness: d.reason === null ? d.readiness : `${d.readiness} (${d.reason})`,
      blockingPath: d.blocking_path,
      priority: d.priority,
      effectivePriority: d.effective_priority,
      fairnessKey: d.fairness_key,
      position: { ...d.position },
      attempts: d.attempts,
      retryNotBefore: d.retry_not_before,
      currentClaim: record.currentClaim,
      claims: [...record.claims],
      dependsOn: d.depends_on.map((e) => dependencyRef(p, e)),
      successors: d.successors.map((id) => workRef(p, id)),
      admittedIn: d.admitted_in,
      completion: d.completion,
      result: d.result,
      deliveryFailure: d.delivery_failure,
      cancellation: d.cancellation,
      search: searchText([d.work_id, d.graph_id, d.node_key, d.pool, d.worker_profile, d.fairness_key, d.state, d.barrier, d.readiness, `p${d.effective_priority}`]),
    });
    for (const claimId of record.claims) {
      const c = claimDetail(p, claimId);
      claims.set(c.claim_id, {
        id: c.claim_id,
        workId: c.work_id,
        state: c.state,
        handle: c.handle,
        requestId: c.request_id,
        grantedIn: c.granted_in,
        position: { ...c.position },
        priority: c.charged.priority,
        fairnessKey: c.charged.fairness_key,
        observations: [...c.observations],
        terminalCommit: c.terminal_commit,
        retryNotBefore: c.retry_not_before,
        dispatch: {
          id: c.dispatch.dispatch_id,
          state: c.dispatch.state,
          members: [...c.dispatch.members],
          released: c.dispatch.released,
          releaseCommit: c.dispatch.release_commit,
          profile: c.dispatch.profile,
          runBound: c.dispatch.run !== null,
        },
        search: searchText([c.claim_id, c.state, c.handle, c.request_id, c.dispatch.dispatch_id, c.dispatch.state]),
      });
    }
  }
  const graphs = [...p.graphs.keys()].sort().map((id) => ({ id, works: [...p.graphs.get(id)!] }));
  const committedRequests = Object.create(null) as Record<string, string>; // keyed by request id
  for (const id of watch) {
    const r = p.request(id);
    if (r !== undefined) committedRequests[id] = r.commitId;
  }
  return {
    tip: p.tip,
    commits: p.commitCount,
    policyEpoch: p.policyEpoch,
    repository: p.repository,
    controls: { admission_paused: p.controls.admission_paused, grants_paused: p.controls.grants_paused },
    graphs,
    works,
    claims,
    readAt: now,
    committedRequests,
  };
}
