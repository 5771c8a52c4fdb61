/**
 * The generated mix itself (bench/generate.ts describes it): `generateLedger` publishes, round
 * by round, pause/resume pairs, submits that keep a backlog, cancellations, dispatch_next grants
 * and the lifecycle of every granted group (started, bound, finishes, results or delivery
 * failures, release) through the engine's `LedgerWriter`, on a clock that advances per request.
 */
import type { JsonObject } from '../engine/json.ts';
import { cancelWork, control, deliveryFailure, dispatchBound, dispatchStarted, release, result } from '../engine/requests/lifecycle.ts';
import { candidateCommitId } from '../engine/identity/index.ts';
import { bootstrapRequest, dispatchNextRequest, finishRequest, submitRequest, type BuiltRequest } from '../engine/requests/operations.ts';
import { LedgerWriter, defaultPolicy } from '../engine/requests/writer.ts';
import type { Actor, QueueCommit } from '../engine/schema/index.ts';
import { DEFAULT_RECONCILIATION } from '../engine/schema/defaults.ts';
import { admission, padReserve, type EnvelopeFill, type EnvelopeFillReport } from './envelope-fill.ts';
import { REPOSITORY, TENANTS, draws, graphNodes } from './generated-graphs.ts';

/** Bump when the generated mix changes: cached ledgers are keyed by it. */
export const GENERATOR_VERSION = 1;

const PRINCIPAL = '1001';
const POOL = 'default';
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
/** Keep roughly this many available Work in the backlog (pending_nodes limit is 4096). */
const BACKLOG_TARGET = 200;
const MAX_RECONCILIATION_ATTEMPTS = DEFAULT_RECONCILIATION.max_attempts; // defaultPolicy reconciliation.max_attempts

/** Per-request-kind writer time, for spotting generation hot spots. */
export interface GenerationStats {
  byKind: Record<string, { count: number; ms: number }>;
  /** `dispatchNextRequest` planning ms (the writer packs once to build; publishing packs again to validate). */
  planMs: number;
  noGrant: number;
}

interface Member {
  workId: string;
  handle: string;
  finished: boolean;
  /** Completed and waiting for its Result / DeliveryFailure. */
  barrierPending: boolean;
}

interface ActiveGroup {
  dispatchId: string;
  phase: 'start' | 'bind' | 'members' | 'release';
  runId: string;
  members: Member[];
}

export function generateLedger(targetBytes: number, seed: number, stats?: GenerationStats, fill?: EnvelopeFill, fillReport?: Partial<EnvelopeFillReport>): { text: string; commits: number } {
  const d = draws(seed);
  const { rnd, int, pick } = d;

  const w = new LedgerWriter();
  let bytes = 0;
  let t = T0;
  let seq = 0;
  let runSeq = 100000;
  let graphSeq = 0;
  const nextId = (kind: string): string => `r-${kind}-${++seq}`;
  const tick = (): number => (t += int(200, 2500));

  const producer: Actor = { role: 'producer', principal: PRINCIPAL, repository: REPOSITORY };
  const admin: Actor = { role: 'administrator', principal: PRINCIPAL, repository: REPOSITORY };
  const reconciler: Actor = { role: 'reconciler', principal: PRINCIPAL, repository: REPOSITORY };

  /** Publishes one request built at its decision time `at` (the clock advances first). */
  const publish = (kind: string, actor: Actor, build: (at: number) => BuiltRequest): QueueCommit => {
    const at = tick();
    return publishBuilt(kind, actor, at, build(at));
  };
  const publishBuilt = (kind: string, actor: Actor, at: number, built: BuiltRequest): QueueCommit => {
    const start = stats === undefined ? 0 : performance.now();
    const commit = w.publish(nextId(kind), actor, at, built);
    bytes += Buffer.byteLength(w.lines[w.lines.length - 1]!);
    if (stats !== undefined) {
      const s = (stats.byKind[built.kind] ??= { count: 0, ms: 0 });
      s.count += 1;
      s.ms += performance.now() - start;
    }
    return commit;
  };

  /** Available, unclaimed Work (generator bookkeeping; the engine state stays the authority). */
  const live = new Set<string>();
  const active: ActiveGroup[] = [];

  /** Envelope mode: admissions stop for good once one would cross the watermark. */
  let closing = false;
  let refusedByReserve = 0;
  /** Envelope mode: whether an admission `built` at `at` fits; flips to closing at the watermark. */
  const admissionFits = (id: string, actor: Actor, at: number, built: BuiltRequest, claims: number, groups: number): boolean => {
    if (fill === undefined) return true;
    const verdict = admission(w.state, fill, POOL, { id, actor, at, built, claims, groups });
    if (verdict === 'fits') return true;
    if (verdict === 'reserve') refusedByReserve += 1;
    else {
      closing = true;
      if (fillReport !== undefined) Object.assign(fillReport, verdict);
    }
    return false;
  };

  const submit = (): boolean => {
    if (closing) return false;
    const graphId = `g-${++graphSeq}`;
    const at = tick(); // before graphNodes: the same PRNG order as before this mode existed
    const nodes = graphNodes(d);
    const built = submitRequest(w.state, nodes, { graphId, at });
    if (!admissionFits(`r-submit-${seq + 1}`, producer, at, built, 0, 0)) return false;
    const commit = publishBuilt('submit', producer, at, built);
    for (const op of commit.operations) if (op.kind === 'Work') live.add(op.work_id);
    return true;
  };

  /** Cancels `roots` (if still available) and every available descendant, which could otherwise never run. */
  const cancelCascade = (roots: readonly string[], reason: string): void => {
    const ids: string[] = [];
    const seen = new Set<string>();
    const stack = [...roots];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const work = w.state.works.get(id);
      if (work?.state === 'available' && work.currentClaim === null) ids.push(id);
      for (const child of w.state.successors.get(id) ?? []) stack.push(child);
    }
    for (let i = 0; i < ids.length; i += 200) {
      const chunk = ids.slice(i, i + 200);
      publish('cancel_work', producer, () => cancelWork(chunk, reason));
      for (const id of chunk) live.delete(id);
    }
  };

  /** Descendants of a Work that will never be verified are stuck; cancel them. */
  const cancelDescendants = (workId: string): void => {
    const children = w.state.successors.get(workId) ?? [];
    if (children.length > 0) cancelCascade(children, 'dependency_failed');
  };

  // Genesis: bootstrap submit carrying the Policy first, then the first graph.
  const weights = Object.fromEntries(TENANTS.map((k, i) => [k, (i % 4) + 1]));
  const policy = defaultPolicy({ repository: REPOSITORY, principal: PRINCIPAL, weights, logicalLimit: 256, nativeLimit: 64, maxClaims: 8, shareKeys: true });
  if (fill !== undefined) Object.assign(policy.limits as JsonObject, { ledger_bytes: fill.ledgerBytes, recovery_bytes: fill.recoveryBytes });
  {
    const genesis = publish('submit', producer, (at) => bootstrapRequest(policy, 'epoch-1', graphNodes(d), { graphId: `g-${++graphSeq}`, at }));
    for (const op of genesis.operations) if (op.kind === 'Work') live.add(op.work_id);
  }

  let paused = false;
  let dispatcherRun = '';
  const dispatcher = (): Actor => ({
    role: 'dispatcher', principal: PRINCIPAL, repository: REPOSITORY,
    workflow: '.github/workflows/dispatcher.lock.yml', run_id: dispatcherRun, run_attempt: 1,
  });

  /** One lifecycle step of `g`; false when the group cannot move now. */
  const step = (g: ActiveGroup): boolean => {
    switch (g.phase) {
      case 'start':
        if (paused) return false;
        publish('dispatch', dispatcher(), () => dispatchStarted(g.dispatchId, dispatcher() as unknown as JsonObject));
        g.phase = 'bind';
        return true;
      case 'bind':
        g.runId = String(++runSeq);
        publish('dispatch', reconciler, (at) => dispatchBound(w.state, g.dispatchId, g.runId, at - 10));
        g.phase = 'members';
        return true;
      case 'members': {
        const settle = g.members.filter((m) => m.barrierPending);
        const open = g.members.filter((m) => !m.finished);
        // Results trail finishes: settle a barrier about a third of the time while members still run.
        if (settle.length > 0 && (open.length === 0 || rnd() < 0.35)) {
          const m = pick(settle);
          if (rnd() < 0.02) {
            publish('delivery_failure', reconciler, (at) => deliveryFailure(w.state, m.workId, at - 10, MAX_RECONCILIATION_ATTEMPTS));
            cancelDescendants(m.workId);
          } else {
            const work = w.state.works.get(m.workId)!;
            const descriptor = {
              comments: int(0, 6),
              pull_request: String(int(1000, 99999)),
              status: 'ok',
              summary: `handled ${work.nodeKey} for ${work.fairnessKey}`,
            };
            publish('result', reconciler, (at) => result(w.state, m.workId, descriptor, at - 10, `rcpt-${g.dispatchId.slice(-12)}-${m.handle}`));
          }
          m.barrierPending = false;
        } else if (open.length > 0) {
          const m = pick(open);
          const worker: Actor = {
            role: 'worker', principal: PRINCIPAL, repository: REPOSITORY, workflow: '.github/workflows/worker.lock.yml',
            run_id: g.runId, run_attempt: 1, dispatch_id: g.dispatchId, claim_handle: m.handle,
          };
          const outcome = rnd() < 0.9 ? 'completed' : 'cancelled';
          const commit = publish('finish', worker, (at) => finishRequest(w.state, { dispatch_id: g.dispatchId, claim_handle: m.handle, outcome }, at));
          m.finished = true;
          if (outcome === 'completed') m.barrierPending = true;
          else if (commit.operations.some((op) => op.kind === 'WorkCancellation')) cancelDescendants(m.workId);
          else live.add(m.workId); // retryable: back to available after the backoff
        }
        if (g.members.every((m) => m.finished && !m.barrierPending)) g.phase = 'release';
        return true;
      }
      case 'release':
        publish('release', reconciler, (at) => release(w.state, g.dispatchId, at - 10));
        active.splice(active.indexOf(g), 1);
        return true;
    }
  };

  /** Envelope mode ends once every admitted item is closed after the watermark. */
  const running = (): boolean => (fill === undefined ? bytes < targetBytes : !(closing && active.length === 0 && live.size === 0 && !paused));
  while (running()) {
    const before = w.lines.length;
    // Grants pause/resume pairs: resume on the round after the pause.
    if (paused) {
      publish('control', admin, () => control('grants_paused', false, 'maintenance_window_end'));
      paused = false;
    } else if (!closing && rnd() < 0.03) {
      publish('control', admin, () => control('grants_paused', true, 'maintenance_window'));
      paused = true;
    }

    let submits = 0;
    while (live.size < BACKLOG_TARGET && submits < 3 && !closing) {
      if (!submit()) break;
      submits += 1;
    }
    if (submits === 0 && !closing && live.size >= BACKLOG_TARGET && rnd() < 0.3) submit();
    // Closing (envelope mode): no admission is possible any more; the backlog is cancelled.
    if (closing && live.size > 0) cancelCascade([...live], 'superseded');

    if (rnd() < 0.25 && live.size > 0) {
      const pool = [...live];
      const roots = Array.from({ length: int(1, 3) }, () => pick(pool));
      cancelCascade(roots, 'superseded');
    }

    if (!paused && !closing && active.length < 12) {
      dispatcherRun = String(++runSeq);
      // Same as LedgerWriter.dispatchNext, split so planning and publishing are timed apart.
      const id = nextId('dispatch_next');
      const at = tick();
      const planStart = stats === undefined ? 0 : performance.now();
      const input = { pool: POOL, max_claims: 64, max_dispatches: 8, max_bytes: 49152 };
      const built = dispatchNextRequest(w.state, input, { requestId: id, commitId: candidateCommitId(w.state.tip, id) }, at);
      if (stats !== undefined) stats.planMs += performance.now() - planStart;
      if (built.operations.length > 0 && !admissionFits(id, dispatcher(), at, built, built.plan.claims.length, built.plan.groups.length)) {
        if (stats !== undefined) stats.noGrant += 1;
      } else if (built.operations.length === 0) {
        if (stats !== undefined) stats.noGrant += 1;
      } else {
        const start = stats === undefined ? 0 : performance.now();
        w.publish(id, dispatcher(), at, built);
        bytes += Buffer.byteLength(w.lines[w.lines.length - 1]!);
        if (stats !== undefined) {
          const s = (stats.byKind.dispatch_next ??= { count: 0, ms: 0 });
          s.count += 1;
          s.ms += performance.now() - start;
        }
        const byClaim = new Map(built.plan.claims.map((c) => [c.claim_id, c]));
        for (const group of built.plan.groups) {
          const members = group.claim_ids.map((claimId) => {
            const claim = byClaim.get(claimId)!;
            live.delete(claim.work_id);
            return { workId: claim.work_id, handle: claim.handle, finished: false, barrierPending: false };
          });
          active.push({ dispatchId: group.dispatch_id, phase: 'start', runId: '', members });
        }
      }
    }

    // Interleave lifecycle steps across the active groups; groups usually live for a few rounds.
    const budget = int(40, 110);
    for (let i = 0; i < budget && active.length > 0 && bytes < targetBytes; i++) {
      const g = pick(active);
      if (!step(g) && active.every((x) => x.phase === 'start')) break;
    }
    // Envelope mode: a round that wrote nothing (every admission refused by the all-writes bound,
    // no open group) sheds some backlog, as an operator would, to free reserve for a grant.
    if (fill !== undefined && !closing && w.lines.length === before && live.size > 0) cancelCascade([...live].slice(0, int(1, 5)), 'superseded');
  }
  if (fill !== undefined) {
    const padded = padReserve(w.state, fill, admin, () => ({ id: `r-control-${seq + 1}`, at: t + 2500 }), () => {
      publish('control', admin, () => control('grants_paused', true, 'maintenance_window'));
      publish('control', admin, () => control('grants_paused', false, 'maintenance_window_end'));
    });
    if (fillReport !== undefined) {
      Object.assign(fillReport, {
        watermark: fill.ledgerBytes, recovery: fill.recoveryBytes, closedBytes: padded.closedBytes, finalBytes: padded.finalBytes, finalReserve: padded.finalReserve,
        admissionsRefusedByReserve: refusedByReserve, paddingControls: padded.paddingControls,
      });
    }
  }
  return { text: w.text(), commits: w.lines.length };
}
