/**
 * A small ledger-building harness for the acceptance tests: every request is
 * built by the engine's request builders and validated by replay through
 * `LedgerWriter` (the same path as the demo queue), so each test drives the
 * real packer, planNext and clocks, and every ledger it writes replays cold.
 */
import { canonicalize } from '../../engine/codec/index.ts';
import { requestFingerprint } from '../../engine/identity/index.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { isProtocolError } from '../../engine/errors.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import type { ReplayState } from '../../engine/state/state.ts';
import { dispatchBound, dispatchStarted, control, observation } from '../../engine/requests/lifecycle.ts';
import { bootstrapRequest, finishRequest, operationsRequest, submitRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import { LedgerWriter } from '../../engine/requests/writer.ts';
import type { PackResult } from '../../engine/scheduler/pack.ts';
import type { Actor, WorkerProfile } from '../../engine/schema/index.ts';
import { parseWorkQueueSettings, policyFromSettings } from '../../lib/config/aw.ts';
import { TEST_WORKER_REF } from '../support/worker-workflow.ts';

export const REPOSITORY = 'owner/repo';
export const T0 = 1_800_000_000_000;

export const admin: Actor = { role: 'administrator', principal: '1001', repository: REPOSITORY };
export const producer: Actor = { role: 'producer', principal: '1001', repository: REPOSITORY };
export const dispatcher: Actor = { role: 'dispatcher', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '5001', run_attempt: 1 };
export const reconciler: Actor = { role: 'reconciler', principal: '1001', repository: REPOSITORY };

/** A QueuePolicy from aw.json `work_queue` settings (the production resolution path). */
export function policyOf(workQueue: unknown = {}, ctx: { profile?: Partial<WorkerProfile>; profiles?: Record<string, WorkerProfile>; defaultProfile?: string } = {}): JsonObject {
  const base = { repository: REPOSITORY, principal: '1001' };
  const settings = parseWorkQueueSettings(workQueue);
  if (ctx.profiles !== undefined) return policyFromSettings(settings, { ...base, profiles: ctx.profiles, ...(ctx.defaultProfile === undefined ? {} : { defaultProfile: ctx.defaultProfile }) });
  return policyFromSettings(settings, { ...base, profile: { ref: TEST_WORKER_REF, ...ctx.profile } });
}

export interface GrantInput {
  pool?: string;
  max_claims?: number;
  max_dispatches?: number;
  max_bytes?: number;
}

export class TestQueue {
  readonly w = new LedgerWriter();
  t = T0;
  private seq = 0;
  private runs = 9000;

  constructor(policy: JsonObject, nodes: SubmitNode[] = [], epoch = 'epoch-1') {
    this.w.publish('bootstrap', producer, this.tick(), bootstrapRequest(policy, epoch, nodes, { graphId: 'g', at: this.t }));
  }

  get state(): ReplayState {
    return this.w.state;
  }

  tick(ms = 1000): number {
    this.t += ms;
    return this.t;
  }

  private id(kind: string): string {
    return `${kind}-${++this.seq}`;
  }

  submit(nodes: SubmitNode[], opts: { graphId?: string; at?: number } = {}): void {
    const at = opts.at ?? this.tick();
    this.w.publish(this.id('submit'), producer, at, submitRequest(this.state, nodes, { graphId: opts.graphId ?? 'g', at }));
  }

  /** One dispatch_next; returns the packer's result (no commit is written for a no-grant). */
  grant(input: GrantInput = {}, at = this.tick()): PackResult {
    const request = { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152, ...input };
    return this.w.dispatchNext(this.id('grant'), dispatcher, at, request).built.plan;
  }

  /** Node keys of the Work a pack result claimed, in Claim order. */
  keys(plan: PackResult): string[] {
    return plan.claims.map((c) => this.state.works.get(c.work_id)!.nodeKey);
  }

  /** Grants one Claim at a time `n` times; returns the node keys (stops at a no-grant). */
  grants(n: number, input: GrantInput = {}): string[] {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const plan = this.grant(input);
      if (plan.claims.length === 0) break;
      out.push(...this.keys(plan));
    }
    return out;
  }

  private bind(dispatchId: string): string {
    const group = this.state.dispatches.get(dispatchId)!;
    const runId = String(++this.runs);
    if (group.state === 'reserved') {
      this.w.publish(this.id('start'), dispatcher, this.tick(), dispatchStarted(dispatchId, dispatcher as unknown as JsonObject));
      this.w.publish(this.id('bind'), reconciler, this.tick(), dispatchBound(this.state, dispatchId, runId, this.t));
    }
    return (this.state.dispatches.get(dispatchId)!.run as { run_id: string }).run_id;
  }

  private finish(claimId: string, outcome: 'completed' | 'cancelled'): void {
    const claim = this.state.claims.get(claimId)!;
    const runId = this.bind(claim.dispatchId);
    const worker: Actor = {
      role: 'worker', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/worker.lock.yml',
      run_id: runId, run_attempt: 1, dispatch_id: claim.dispatchId, claim_handle: claim.handle,
    };
    const at = this.tick();
    this.w.publish(this.id('finish'), worker, at, finishRequest(this.state, { dispatch_id: claim.dispatchId, claim_handle: claim.handle, outcome }, at));
  }

  /** The worker completes the Claim of `nodeKey`: its logical slot closes. */
  complete(nodeKey: string): void {
    this.finish(this.claimOf(nodeKey), 'completed');
  }

  /** The worker cancels the Claim of `nodeKey`: the Work is available again after the retry backoff. */
  cancel(nodeKey: string): void {
    this.finish(this.claimOf(nodeKey), 'cancelled');
  }

  claimOf(nodeKey: string): string {
    const work = [...this.state.works.values()].find((w) => w.nodeKey === nodeKey)!;
    return work.currentClaim!;
  }

  workId(nodeKey: string): string {
    return [...this.state.works.values()].find((w) => w.nodeKey === nodeKey)!.workId;
  }

  observe(op: JsonObject): void {
    this.w.publish(this.id('observe'), reconciler, this.tick(), operationsRequest('observe', [op]));
  }

  control(name: 'grants_paused' | 'admission_paused', value: boolean): void {
    this.w.publish(this.id('control'), admin, this.tick(), control(name, value, 'operator_request'));
  }

  text(): string {
    return this.w.text();
  }

  /** The ledger's records, parsed (for tamper tests). */
  commits(): Commit[] {
    return this.w.lines.map((l) => JSON.parse(l) as Commit);
  }
}

export type Commit = JsonObject & { id: string; previous: string | null; at: number; request: JsonObject; actor: JsonObject; operations: JsonObject[] };

/** Recomputes the request fingerprint after an edit so only the intended rule can fail. */
export function seal(c: Commit): Commit {
  c.request.fingerprint = requestFingerprint(c.actor, c.request.kind as string, c.request.parameters as JsonValue);
  return c;
}

export function ledgerOf(commits: readonly JsonObject[]): string {
  return commits.map((c) => canonicalize(c)).join('\n') + '\n';
}

/**
 * The replay verdict of a ledger, read on the byte path (UTF-8 through the real framing):
 * 'accepted' or the ProtocolError code. Any other exception is a bug, never a verdict: rethrown.
 */
export function verdict(text: string): string {
  try {
    replayLedger(new TextEncoder().encode(text));
    return 'accepted';
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
}

/** A typed Issue resource identity (canonical-prefix fixture shape). */
export function issue(number: number): JsonObject {
  return { host: 'github.com', kind: 'issue', number: String(number), repository: REPOSITORY, repository_id: '1', resource_id: String(100000 + number) };
}

export function issueObservation(id: string, number: number, satisfied: boolean, observedAt: number): JsonObject {
  return observation({ id, resource: issue(number), condition: 'completed', satisfied, observedAt, generation: 'initial' });
}

/** `n` nodes `${prefix}-1..n` with the given key and priority. */
export function nodes(prefix: string, n: number, fairnessKey: string, priority = 3, extra: Partial<SubmitNode> = {}): SubmitNode[] {
  return Array.from({ length: n }, (_, i) => ({ node_key: `${prefix}-${i + 1}`, payload: { task: `${prefix}-${i + 1}` }, fairness_key: fairnessKey, priority, ...extra }));
}
