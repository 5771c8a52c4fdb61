/**
 * The front door (docs/architecture.md): the read API over a validated replay
 * state. lib/ and the surfaces read the queue only through it: commits and
 * their texts, requests, Work, Claims, dispatch groups, the typed installed
 * Policy, controls, Observations, and the projection as of any retained commit
 * (`at`/`before`, one cached prefix replay). `state` is engine-internal: lint
 * (`fairway/front-door`) forbids reading it outside engine/. A projection that
 * failed validation is poisoned and answers nothing.
 */
import { fail } from '../errors.ts';
import { forkState } from './fork.ts';
import { checkForkable } from './fork-fields.ts';
import type { JsonObject } from '../json.ts';
import { parseQueueCommit, type QueueCommit } from '../schema/index.ts';
import type { QueuePolicy } from '../schema/policy.ts';
import type { FairnessState } from '../state/fairness.ts';
import type { ResultInput } from '../state/ready-index.ts';
import { stateOf, type QueueSource } from '../state/source.ts';
import { envelopeView, type EnvelopeView } from './headroom.ts';
import { LedgerRecords } from './ledger-records.ts';
import { quiescenceBlockers, type QuiescenceBlocker } from './quiescence.ts';
import type {
  CheckpointBase, ClaimRecord, CommitInfo, Controls, DispatchRecord, ObservationRecord, PolicyEpochRecord, PolicyRecord,
  ReplayState, RequestOutcome, WorkerRoute, WorkRecord,
} from '../state/state.ts';

/**
 * A process-wide brand (`Symbol.for`), as `ProtocolError` has: bundlers can load a module once
 * per layer (Next.js's server and SSR chunks do, and the console shares one runtime across
 * them), so `instanceof Projection` must hold for a projection made by another copy.
 */
const PROJECTION = Symbol.for('fairway.Projection');

export class Projection {
  static [Symbol.hasInstance](value: unknown): boolean {
    if (this !== Projection) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as { [PROJECTION]?: unknown })[PROJECTION] === true;
  }

  declare readonly [PROJECTION]: true;
  /** Each commit's line and successor (ledger-records.ts). */
  private records: LedgerRecords;
  private lines = 0;
  private poisoned = false;
  /** Bumped whenever this projection validates more input or is poisoned (a fork is only good for one generation). */
  private generation = 0;
  /** Set on a fork: the projection it was forked from, and that projection's generation then. */
  private parent: { projection: Projection; generation: number } | null = null;
  /** Projections as of earlier commits, by commit count (least recently used first). */
  private readonly prefixes = new Map<number, Projection>();

  /** @internal engine-only: outside engine/ read through the methods below (lint: `fairway/front-door`). */
  constructor(readonly state: ReplayState) {
    Object.defineProperty(this, PROJECTION, { value: true });
    this.records = new LedgerRecords(state, null);
  }

  /**
   * A tentative copy to validate a candidate on: appending to the fork runs the same fold,
   * but this projection is left exactly as it is (engine/replay/fork.ts: a copy-on-write view
   * of the state, so a fork costs what the appended commits touch, not the ledger's size).
   * Discarding the fork needs nothing; to keep what it validated, append the same bytes to
   * this projection. A fork is usable only while this projection does not change.
   */
  fork(): Projection {
    this.check();
    checkForkable(this.state);
    const child = new Projection(forkState(this.state));
    child.parent = { projection: this, generation: this.generation };
    child.records = new LedgerRecords(child.state, this.records);
    child.lines = this.lines;
    return child;
  }

  /** True for a projection made by `fork()`. */
  get forked(): boolean {
    return this.parent !== null;
  }

  /** The operating envelope (spec 7.17): ledger bytes, watermark, reserve owed, remaining budgets. */
  envelope(): EnvelopeView {
    return envelopeView(this.state);
  }

  get valid(): boolean {
    return !this.poisoned && (this.parent === null || (this.parent.projection.generation === this.parent.generation && this.parent.projection.valid));
  }

  /** Physical lines consumed so far (line numbers of appended bytes continue from here). */
  get lineCount(): number {
    return this.lines;
  }

  /** Bytes validated so far. */
  get validatedLength(): number {
    return this.records.byteLength;
  }

  /** True when `full` starts with exactly the bytes this projection validated. */
  isPrefixOf(full: Uint8Array): boolean {
    if (!this.valid || !this.records.bytesExact || full.length < this.records.byteLength) return false;
    let offset = 0;
    for (const chunk of this.validatedChunks()) {
      if (Buffer.compare(full.subarray(offset, offset + chunk.length), chunk) !== 0) return false;
      offset += chunk.length;
    }
    return true;
  }

  /** The validated bytes, in the pieces they arrived in (null when some input arrived as text). */
  validatedChunks(): readonly Uint8Array[] {
    if (!this.records.bytesExact) fail('projection_invalid', 'this projection validated text, not bytes');
    return this.records.allChunks();
  }

  /**
   * @internal Retains a byte input before its records are folded, so records
   * released from it can be read back (exact-duplicate checks) while the same
   * input is still being replayed. Returns its chunk index (-1 for text).
   */
  stageChunk(input: Uint8Array | string): number {
    return this.records.stage(input);
  }

  /**
   * @internal replay bookkeeping: commit `id` extends `previous`; its record is `text`, or (null)
   * bytes `start`..`end` of the input `chunk` (`stageChunk`).
   */
  remember(id: string, previous: string | null, text: string | null, chunk = -1, start = 0, end = 0): void {
    this.records.remember(id, previous, text, chunk, start, end);
  }

  /** @internal */
  accept(input: Uint8Array | string, lines: number): void {
    this.generation++;
    this.lines += lines;
    this.records.accept(input);
  }

  /** @internal */
  poison(): void {
    this.generation++;
    this.poisoned = true;
  }

  private check(): ReplayState {
    if (this.poisoned) fail('projection_invalid', 'this projection failed validation; replay the ledger cold');
    if (this.parent !== null && !this.valid) fail('projection_invalid', 'the projection this fork was made from has changed since; fork it again');
    return this.state;
  }

  commitText(id: string): string | undefined {
    return this.records.text(id);
  }

  /** Commit `id`'s record as replay kept it: a view of its bytes, or its text (ledger-records.ts). */
  commitRecord(id: string): Uint8Array | string | undefined {
    return this.records.record(id);
  }

  successorOf(id: string): string | undefined {
    return this.records.successorOf(id);
  }

  get tip(): string | null {
    return this.check().tip;
  }

  get commitCount(): number {
    return this.check().commits.length;
  }

  /** The queue repository (`owner/name`) the genesis Actor named, or null. */
  get repository(): string | null {
    return this.check().repository;
  }

  get policyEpoch(): string | null {
    return this.check().policy?.epoch ?? null;
  }

  work(id: string): WorkRecord | undefined {
    return this.check().works.get(id);
  }

  works(): IterableIterator<WorkRecord> {
    return this.check().works.values();
  }

  claim(id: string): ClaimRecord | undefined {
    return this.check().claims.get(id);
  }

  dispatch(id: string): DispatchRecord | undefined {
    return this.check().dispatches.get(id);
  }

  request(id: string): RequestOutcome | undefined {
    return this.check().requests.get(id);
  }

  // ---- queue-wide reads --------------------------------------------------

  /** Operational Controls (spec 7.10). */
  get controls(): Readonly<Controls> {
    return this.check().controls;
  }

  /** The installed QueuePolicy (validated by replay, so typed), or null before the genesis. */
  get policy(): QueuePolicy | null {
    return this.check().policy?.policy ?? null;
  }

  /** The installed Policy's epoch record (epoch, installing commit and ordinal), or null. */
  get policyRecord(): Readonly<PolicyRecord> | null {
    return this.check().policy;
  }

  /** Every installed Policy epoch, in causal order. */
  get policyHistory(): readonly Readonly<PolicyEpochRecord>[] {
    return this.check().policyHistory;
  }

  /** Names of the installed pools, sorted (none before the genesis). */
  get poolNames(): string[] {
    const policy = this.policy;
    return policy === null ? [] : Object.keys(policy.pools).sort();
  }

  /** The fairness clocks of the current Policy epoch (spec 7.5). */
  get fairness(): Readonly<FairnessState> {
    return this.check().fairness;
  }

  /**
   * Outstanding reservations: logical Claims per pool and per (pool, fairness key)
   * (`${pool}\u0000${key}`), unreleased native reservations per pool, and nonterminal
   * or delivery-pending Work per pool (spec 7.8, 7.17).
   */
  get reservations(): { logical: ReadonlyMap<string, number>; logicalByKey: ReadonlyMap<string, number>; native: ReadonlyMap<string, number>; pendingByPool: ReadonlyMap<string, number> } {
    const s = this.check();
    return { logical: s.outstandingClaims, logicalByKey: s.outstandingByKey, native: s.outstandingNative, pendingByPool: s.pendingByPool };
  }

  /** Why a new Policy epoch cannot be installed now (spec 7.10); empty when the queue is quiescent. */
  quiescence(): QuiescenceBlocker[] {
    return quiescenceBlockers(this.check());
  }

  /** Worker routes moved by Deployments, per `${pool}\u0000${profile}` (spec 7.10). */
  get deployments(): ReadonlyMap<string, WorkerRoute> {
    return this.check().deployments;
  }

  /** The checkpoint root's compacted-prefix record, when the ledger starts with one (spec 7.10). */
  get checkpoint(): Readonly<CheckpointBase> | undefined {
    return this.check().checkpoint;
  }

  // ---- commits -----------------------------------------------------------

  /** The ledger's commits in causal order (a checkpoint root first, if any). */
  get commits(): readonly Readonly<CommitInfo>[] {
    return this.check().commits;
  }

  /** The tip's commit, or null for an empty projection. */
  get lastCommit(): Readonly<CommitInfo> | null {
    const { commits } = this.check();
    return commits[commits.length - 1] ?? null;
  }

  /** Position of commit `id` in `commits` (0-based; the ordinal unless the root is a checkpoint). */
  commitPosition(id: string): number | undefined {
    return this.check().commitIndex.get(id);
  }

  commitInfo(id: string): Readonly<CommitInfo> | undefined {
    const s = this.check();
    const i = s.commitIndex.get(id);
    return i === undefined ? undefined : s.commits[i];
  }

  /** Commit `id` parsed, while the ledger retains its text (a checkpoint replaced older ones). */
  commit(id: string): QueueCommit | undefined {
    const text = this.commitText(id);
    return text === undefined ? undefined : parseQueueCommit(JSON.parse(text));
  }

  // ---- records -----------------------------------------------------------

  get workCount(): number {
    return this.check().works.size;
  }

  claims(): IterableIterator<ClaimRecord> {
    return this.check().claims.values();
  }

  dispatches(): IterableIterator<DispatchRecord> {
    return this.check().dispatches.values();
  }

  get dispatchCount(): number {
    return this.check().dispatches.size;
  }

  requests(): IterableIterator<RequestOutcome> {
    return this.check().requests.values();
  }

  get requestCount(): number {
    return this.check().requests.size;
  }

  /** Work ids by graph id (DAG views). */
  get graphs(): ReadonlyMap<string, readonly string[]> {
    return this.check().graphs;
  }

  /** Work that depends on `workId` (reverse `depends_on` edges). */
  dependents(workId: string): readonly string[] {
    return this.check().successors.get(workId) ?? [];
  }

  /** The latest Observation of a gate (`gateIdentity` of a dependency edge), or undefined. */
  observation(gate: string): ObservationRecord | undefined {
    const s = this.check();
    const id = s.latestObservation.get(gate);
    return id === undefined ? undefined : s.observations.get(id);
  }

  observations(): IterableIterator<ObservationRecord> {
    return this.check().observations.values();
  }

  /** Latest Observation id per gate identity. */
  get latestObservations(): ReadonlyMap<string, string> {
    return this.check().latestObservation;
  }

  /** Backing-Issue link and comment records of a Work (projector records). */
  issueLinks(workId: string): readonly JsonObject[] {
    return this.check().issueLinks.get(workId) ?? [];
  }

  /** The verified Result a completed Work hands its successors (result commit and descriptor), if any. */
  resultInput(workId: string): Readonly<ResultInput> | undefined {
    return this.check().ready.results.get(workId);
  }

  // ---- history -----------------------------------------------------------

  /**
   * The projection as of commit `commitId` inclusive: this projection at its tip, else one
   * cold replay of the retained prefix, cached (spec 7.13: the predecessor prefix reproduces
   * an explanation offline). Treat it as read-only. `unknown_commit` when the ledger does not
   * retain the commit (`projectionAt` in engine/receipts tells a compacted one apart).
   */
  at(commitId: string): Projection {
    return this.prefix(this.retained(commitId) + 1);
  }

  /** The projection just before commit `commitId` (its predecessor prefix; empty for the first). */
  before(commitId: string): Projection {
    return this.prefix(this.retained(commitId));
  }

  private retained(commitId: string): number {
    const index = this.check().commitIndex.get(commitId);
    if (index === undefined) fail('unknown_commit', `commit ${commitId} is not in the validated ledger`);
    return index;
  }

  /** The projection of the first `count` retained commits (cached, bounded). */
  private prefix(count: number): Projection {
    if (count === this.state.commits.length) return this;
    const cached = this.prefixes.get(count);
    if (cached !== undefined) {
      this.prefixes.delete(count);
      this.prefixes.set(count, cached);
      return cached;
    }
    const projection = replayPrefix(this, count);
    this.prefixes.set(count, projection);
    while (this.prefixes.size > PREFIX_CACHE_SIZE) this.prefixes.delete(this.prefixes.keys().next().value!);
    return projection;
  }
}

/** Historical projections one projection keeps (console permalinks, receipts, explanations). */
const PREFIX_CACHE_SIZE = 12;

/** Cold replay of ledger text ('' = no commits); installed by replay.ts, which imports this module. */
let coldReplay: ((text: string) => Projection) | null = null;

/** @internal replay.ts installs its cold replay here (an import would be a cycle). */
export function installColdReplay(replay: (text: string) => Projection): void {
  coldReplay = replay;
}

/**
 * The one prefix replay: a fresh, independent projection of the first `count` retained commits
 * of `projection`, in causal order (physical order does not matter, spec 7.6). `Projection.at`
 * and `before` cache it; a caller that mutates the result (a scratch state) calls it directly.
 */
export function replayPrefix(projection: Projection, count: number): Projection {
  if (coldReplay === null) throw new Error('engine/replay/replay.ts is not loaded');
  const { commits } = projection.state;
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(projection.commitText(commits[i]!.id)!);
  return coldReplay(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
}

/** The floor's accessor (engine/state/source.ts), also exported here for the engine's own callers. */
export { stateOf, type QueueSource };

/** A projection for a queue source (a bare state is wrapped: reads only, no commit texts). */
export function projectionOf(source: QueueSource): Projection {
  return source instanceof Projection ? source : new Projection(stateOf(source));
}
