/**
 * The queue state (the floor beneath replay and the scheduler, docs/architecture.md): what a
 * fold over the causal chain (spec 7.6) remembers. Replay writes it (through mutate.ts for Work
 * state changes), the scheduler reads it; outside engine/ it is read only through `Projection`
 * (engine/replay/projection.ts). Everything here is disposable and re-derivable from the
 * ledger (spec 7.17).
 */
import type { JsonObject } from '../json.ts';
import type { QueuePolicy } from '../schema/policy.ts';
import { createFairnessState, type FairnessState } from './fairness.ts';
import { createReadyIndex, type ReadyIndex } from './ready-index.ts';

export type WorkState = 'available' | 'claimed' | 'completed' | 'cancelled';
/** Delivery barrier of a completed Work (spec 7.15). */
export type Barrier = 'none' | 'pending' | 'verified' | 'failed';

/** A typed dependency edge as persisted on Work (`depends_on`). */
export type DependencyEdge =
  | { kind: 'work'; work_id: string }
  | { kind: 'issue'; condition: 'completed' | 'closed'; resource: ResourceIdentity }
  | { kind: 'pull_request'; condition: 'merged'; resource: ResourceIdentity };

export interface ResourceIdentity {
  kind: 'issue' | 'pull_request';
  host: string;
  repository: string;
  repository_id: string;
  resource_id: string;
  number: string;
}

/** Causal position: (commit ordinal, operation index). Unique per Work; FIFO order. */
export interface Position {
  ordinal: number;
  operation: number;
}

export interface WorkRecord {
  workId: string;
  graphId: string;
  nodeKey: string;
  pool: string;
  workerProfile: string;
  batchTrustDomain: string;
  /** Admitted (immutable) priority. */
  priority: number;
  /** Priority after WorkPriority overrides; used for future class charges. */
  effectivePriority: number;
  fairnessKey: string;
  dependsOn: DependencyEdge[];
  enqueued: number;
  /**
   * The complete immutable Work operation as admitted (idempotency, payload, views). Replay reads
   * it back from the admitting record when asked rather than keeping it (state/definitions.ts):
   * what the fold needs of it after admission is kept in the fields below and in the record's.
   */
  definition: JsonObject;
  /** The revision the Work pinned at admission (`execution_ref`), or null. */
  executionRef: string | null;
  /** The pre-existing Issue the Work was admitted with (`backing_issue`), or null. */
  backingIssue: ResourceIdentity | null;
  /** The delivery-failed Work this one replaces (`replacement_of.work_id`), or null. */
  replacementOf: string | null;
  position: Position;
  /** Monotone FIFO rank: ordinal * 65536 + operation index (operations ≤ 256). */
  fifo: number;
  admittedCommit: string;
  policyEpoch: string;
  state: WorkState;
  barrier: Barrier;
  /** The Claim that currently owns this Work (state `claimed`), or that completed it. */
  currentClaim: string | null;
  /** All Claims ever granted for this Work, in causal order. */
  claims: string[];
  /** Number of Claims granted (attempts consumed). */
  attempts: number;
  /** Trusted retry boundary from the last ClaimCancellation (ms), or null. */
  retryNotBefore: number | null;
  completionCommit: string | null;
  completionAt: number | null;
  resultCommit: string | null;
  deliveryFailureCommit: string | null;
  cancellationCommit: string | null;
  cancellationReason: string | null;
  /** The Claim a fenced WorkCancellation named (`claim_id`), when it carried one. */
  cancellationClaim?: string;
  /** Ids of commits that touched this Work, causal order (explorer history). */
  touchedBy: string[];
}

export type ClaimState = 'open' | 'completed' | 'cancelled';

export interface ClaimRecord {
  claimId: string;
  workId: string;
  dispatchId: string;
  handle: string;
  requestId: string;
  commitId: string;
  position: Position;
  /** Class and key this Claim charged (effective priority at grant time). */
  priority: number;
  fairnessKey: string;
  observations: string[];
  state: ClaimState;
  terminalCommitId: string | null;
  retryNotBefore: number | null;
  cancelReason: string | null;
}

export type DispatchState = 'reserved' | 'started' | 'bound' | 'uncertain' | 'unresolved' | 'rejected';

export interface DispatchRecord {
  dispatchId: string;
  pool: string;
  workerProfile: string;
  /** The approved profile frozen at grant time (spec 7.10). */
  profile: JsonObject;
  batchTrustDomain: string;
  claimIds: string[];
  commitId: string;
  requestId: string;
  policyEpoch: string;
  state: DispatchState;
  sender: JsonObject | null;
  run: JsonObject | null;
  /** Native reservation outstanding until a Release. */
  released: boolean;
  releaseCommit: string | null;
  /** Count of lifecycle writes (Dispatch/Release) for the recovery reserve. */
  lifecycleWrites: number;
  reason: string | null;
  /**
   * A recorded run binding conflict (spec 7.8; replay/ops/conflict.ts): every candidate run,
   * how many its receipt could not name, and the candidates with recorded exact terminal
   * evidence. Kept after an operator's resolution; null when none was recorded.
   */
  conflict: DispatchConflict | null;
}

export interface DispatchConflict {
  runs: string[];
  unnamed: number;
  terminal: string[];
}

export interface ObservationRecord {
  observationId: string;
  commitId: string;
  /** canonical({condition,host,kind,repository_id,resource_id}) — the gate identity. */
  gate: string;
  condition: string;
  state: 'ready' | 'waiting' | 'failed' | 'unknown';
  observedAt: number;
  credentialGeneration: string;
  readStatus: string;
  operation: JsonObject;
}

export interface Controls {
  admission_paused: boolean;
  grants_paused: boolean;
  credential_generation: string;
}

export interface RequestOutcome {
  requestId: string;
  kind: string;
  fingerprint: string;
  commitId: string;
  ordinal: number;
  at: number;
  actor: JsonObject;
  /** Claims created by this request (dispatch_next), in grant order. */
  claimIds: string[];
  /** Work ids admitted or named by this request (submit). */
  workIds: string[];
}

export interface PolicyRecord {
  epoch: string;
  /** The installed Policy (validated by replay against the closed schema). */
  policy: QueuePolicy;
  commitId: string;
  ordinal: number;
}

/**
 * An epoch of `policyHistory`. A checkpoint keeps of an earlier epoch's Policy only its projector
 * rules (`epoch_projectors`, replay/checkpoint-issues.ts), so a restored earlier epoch's Policy
 * may be partial; the installed epoch's record is `policy` itself.
 */
export interface PolicyEpochRecord extends Omit<PolicyRecord, 'policy'> {
  policy: Partial<QueuePolicy>;
}

/** One registered immutable worker revision of a route (spec 7.10). */
export interface WorkerRevision {
  /** The profile a dispatch group at this revision freezes: installed authority, this `ref`. */
  profile: JsonObject;
  /** Logical contract: the Deployment's `logical_contract`, else derived from the authority. */
  contract: string;
  available: boolean;
}

/** The prospective execution route of one pool profile: its current revision and every registered one. */
export interface WorkerRoute {
  currentRef: string;
  revisions: Map<string, WorkerRevision>;
}

export interface CommitInfo {
  id: string;
  previous: string | null;
  ordinal: number;
  at: number;
  requestId: string;
  kind: string;
  role: string;
  operations: number;
  policyEpoch: string;
}

export interface ReplayState {
  /** Queue repository from the genesis Actor. */
  repository: string | null;
  tip: string | null;
  /** The ledger's commits in causal order (a checkpoint root first, if any). */
  commits: CommitInfo[];
  /** Index into `commits` by commit id (equals the ordinal unless the root is a checkpoint). */
  commitIndex: Map<string, number>;
  policy: PolicyRecord | null;
  policyHistory: PolicyEpochRecord[];
  controls: Controls;
  works: Map<string, WorkRecord>;
  /** Works by graph id (DAG views, graph limits). */
  graphs: Map<string, string[]>;
  /**
   * Distinct Issue/PR gate vertices per graph id, by gate identity (resource + condition): the
   * per-graph node limit counts them with the graph's Work (spec 7.16, 7.17).
   */
  graphGates: Map<string, Set<string>>;
  /** Reverse Work edges: predecessor → successors. */
  successors: Map<string, string[]>;
  claims: Map<string, ClaimRecord>;
  dispatches: Map<string, DispatchRecord>;
  observations: Map<string, ObservationRecord>;
  /** Latest observation id per gate identity. */
  latestObservation: Map<string, string>;
  /** Observation writes per gate identity in the current epoch (budget). */
  observationWrites: Map<string, number>;
  requests: Map<string, RequestOutcome>;
  /** Fairness clocks of the current policy epoch, per pool (spec 7.5). */
  fairness: FairnessState;
  /** Scheduling indexes (per-bucket FIFO) maintained on every Work state change. */
  ready: ReadyIndex;
  /** Outstanding logical Claims per pool and per (pool, fairness key). */
  outstandingClaims: Map<string, number>;
  outstandingByKey: Map<string, number>;
  /** Outstanding native reservations (unreleased dispatch groups) per pool. */
  outstandingNative: Map<string, number>;
  /** Nonterminal or delivery-pending Work per pool (pending_nodes limit, 7.17). */
  pendingByPool: Map<string, number>;
  /**
   * Worker routes moved by Deployments, per `${pool}\u0000${profile}` (spec 7.10); absent = the
   * installed profile's own revision, available (replay/ops/deployment.ts). Cleared by a Policy epoch.
   */
  deployments: Map<string, WorkerRoute>;
  /** The logical contract each Work froze at admission (spec 7.10 `admission_contract`), by Work id. */
  admissions: Map<string, string>;
  /** Backing Issue links and comments by Work id (projector records). */
  issueLinks: Map<string, JsonObject[]>;
  /**
   * The Work each IssueLink binds, by Issue identity (replay/ops/backing-issue.ts `issueIdentity`):
   * one Work per Issue is checked against it, not by walking `issueLinks`.
   */
  linkedIssues: Map<string, string>;
  /**
   * The Work each recorded IssueComment handle belongs to, by comment id: a handle is recorded
   * once in the whole queue and never rebound to another Work (kept by replay, rebuilt by
   * checkpoint restoration).
   */
  issueComments: Map<string, string>;
  /**
   * The Work admitted with each pre-existing `backing_issue`, by Issue identity (kept by
   * admission, rebuilt by checkpoint restoration): one Work per Issue is checked against it.
   */
  backingIssues: Map<string, string>;
  /**
   * The dispatch group each bound worker run is bound to, by run id (kept by the bound
   * transition, rebuilt by checkpoint restoration): one native run binds one group (spec 7.8).
   */
  boundRuns: Map<string, string>;
  /**
   * Every credential generation the queue has had (`initial` first), to the commit that first set
   * it (kept by the Control, restored from a checkpoint's `seen_generations`): a cutover never
   * returns to an earlier generation, whose observations would be valid again (spec 7.16).
   */
  seenGenerations: Map<string, string | null>;
  /** Set when the ledger's root is a Checkpoint (spec 7.10 compaction); see replay/checkpoint.ts. */
  checkpoint?: CheckpointBase;
  /** Ledger bytes and owed recovery reserve (spec 7.17; replay/ledger-budget.ts). */
  budget?: LedgerBudget;
}

/** The operating envelope's running totals (spec 7.17), kept by replay/ledger-budget.ts. */
export interface LedgerBudget {
  /** Canonical bytes of the retained ledger (lines + LF). */
  bytes: number;
  /** Σ of the reserve contributions. */
  reserve: number;
  /** Reserve contribution per Work record (nonzero only; keyed by the record: no id hashing). */
  works: Map<WorkRecord, number>;
  /** Reserve contribution per dispatch group record (nonzero only). */
  groups: Map<DispatchRecord, number>;
}

/**
 * What a checkpoint root restored beyond the live records: the compacted prefix's
 * contribution, kept verbatim so a later checkpoint can carry it forward.
 */
export interface CheckpointBase {
  /** Transactions in the compacted prefix = the root's own ordinal; later commits continue after it. */
  ordinal: number;
  priorGitSha: string;
  priorTip: string;
  /** The prefix's request receipts (the checkpoint state's `requests`), in causal order. */
  receipts: JsonObject[];
  seenEpochs: string[];
  seenGenerations: string[];
  /** The prefix's settling Result/DeliveryFailure operations by Work id. */
  terminalBarriers: JsonObject;
  /** The prefix's ClaimCancellation (by Claim id) and WorkCancellation (by Work id) operations. */
  cancellations: JsonObject;
}

/** The state of no commits: what a cold replay folds the genesis into. */
export function createState(): ReplayState {
  return {
    repository: null,
    tip: null,
    commits: [],
    commitIndex: new Map(),
    policy: null,
    policyHistory: [],
    controls: { admission_paused: false, grants_paused: false, credential_generation: 'initial' },
    works: new Map(),
    graphs: new Map(),
    graphGates: new Map(),
    successors: new Map(),
    claims: new Map(),
    dispatches: new Map(),
    observations: new Map(),
    latestObservation: new Map(),
    observationWrites: new Map(),
    requests: new Map(),
    fairness: createFairnessState(null),
    ready: createReadyIndex(),
    outstandingClaims: new Map(),
    outstandingByKey: new Map(),
    outstandingNative: new Map(),
    pendingByPool: new Map(),
    deployments: new Map(),
    admissions: new Map(),
    issueLinks: new Map(),
    linkedIssues: new Map(),
    issueComments: new Map(),
    boundRuns: new Map(),
    seenGenerations: new Map([['initial', null]]),
    backingIssues: new Map(),
  };
}
