/**
 * Deterministic, realistic ledger generator for the replay benchmarks.
 *
 * Everything goes through the engine's `LedgerWriter`, so every commit is
 * built on the tip and validated by replay exactly like a published request.
 * The mix follows the reference-written ledgers in
 * `shared/reference/gh-aw-generated/`: a 50-tenant weighted Policy, submits of
 * 1-20 node graphs (some with Work edges) across 5 priorities, dispatch_next
 * grants of up to 64 Claims in up to 8 groups, the dispatch lifecycle
 * (started, bound), finishes (~90% completed), results, a few delivery
 * failures after reconciliation exhaustion, releases, cancel_work and a few
 * grants_paused pause/resume pairs. Seeded PRNG and a fixed clock that
 * advances per request: the same (targetBytes, seed) always gives the same
 * bytes.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProtocolError } from '../engine/errors.ts';
import { canonicalize } from '../engine/codec/index.ts';
import type { JsonObject, JsonValue } from '../engine/json.ts';
import { checkEnvelope, checkGrantFits, checkSubmitFits, ledgerBudget } from '../engine/replay/ledger-budget.ts';
import { buildCommit } from '../engine/requests/build.ts';
import { cancelWork, control, deliveryFailure, dispatchBound, dispatchStarted, release, result } from '../engine/requests/lifecycle.ts';
import { candidateCommitId } from '../engine/identity/index.ts';
import { bootstrapRequest, dispatchNextRequest, finishRequest, submitRequest, type BuiltRequest, type SubmitNode } from '../engine/requests/operations.ts';
import { LedgerWriter, defaultPolicy } from '../engine/requests/writer.ts';
import type { Actor, QueueCommit } from '../engine/schema/index.ts';
import { DEFAULT_RECONCILIATION } from '../engine/schema/defaults.ts';

/** Bump when the generated mix changes: cached ledgers are keyed by it. */
export const GENERATOR_VERSION = 1;

export const REPOSITORY = 'owner/repo';
const PRINCIPAL = '1001';
const POOL = 'default';
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const TENANTS = Array.from({ length: 50 }, (_, i) => `tenant-${String(i).padStart(2, '0')}`);
/** Keep roughly this many available Work in the backlog (pending_nodes limit is 4096). */
const BACKLOG_TARGET = 200;
const MAX_RECONCILIATION_ATTEMPTS = DEFAULT_RECONCILIATION.max_attempts; // defaultPolicy reconciliation.max_attempts

const WORDS = [
  'bump', 'fix', 'update', 'failure', 'notes', 'dependency', 'refactor', 'summarize', 'review', 'label', 'security', 'flaky',
  'docs', 'triage', 'changelog', 'module', 'investigate', 'release', 'advisory', 'backport', 'migrate', 'upgrade', 'lint', 'test',
];
const LABELS = ['bug', 'p0', 'p1', 'p2', 'docs', 'security', 'flaky', 'deps', 'enhancement', 'good-first-issue'];
const TASKS = ['fix', 'deps', 'docs', 'triage', 'refactor', 'review', 'release'];

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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

/**
 * The "ledger at the watermark plus its full reserve" mode (issue 11 §5; docs/operating-envelope.md):
 * the Policy carries these small `limits`; the mix admits (submits, grants) while each admission
 * fits the envelope (skipping one the all-writes bound refuses, shedding backlog when nothing else
 * can move) until an admission would cross the watermark W. Then only closure writes follow:
 * every admitted item is closed (cancel_work of the backlog, the lifecycle of every open group to
 * its release), then grants_paused control pairs fill what the all-writes bound still allows, so
 * the ledger ends within one control commit of W + Rv with nothing owed.
 */
export interface EnvelopeFill {
  ledgerBytes: number;
  recoveryBytes: number;
}

export interface EnvelopeFillReport {
  watermark: number;
  recovery: number;
  /** Ledger bytes when the first admission was refused at the watermark. */
  admittedBytes: number;
  /** Owed reserve at that point. */
  reserveAtWatermark: number;
  /** Bytes after closing every admitted item, before padding. */
  closedBytes: number;
  finalBytes: number;
  finalReserve: number;
  admissionsRefusedByReserve: number;
  paddingControls: number;
}

export function generateLedger(targetBytes: number, seed: number, stats?: GenerationStats, fill?: EnvelopeFill, fillReport?: Partial<EnvelopeFillReport>): { text: string; commits: number } {
  const rnd = prng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

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

  const instructions = (): string => {
    const target = int(250, 330);
    const words: string[] = [];
    let len = 0;
    while (len < target) {
      const word = pick(WORDS);
      words.push(word);
      len += word.length + 1;
    }
    return words.join(' ');
  };

  const graphNodes = (): SubmitNode[] => {
    const n = int(1, 20);
    const nodes: SubmitNode[] = [];
    for (let i = 0; i < n; i++) {
      const depends: SubmitNode['depends_on'] = [];
      if (i > 0 && rnd() < 0.3) {
        const parents = new Set<number>();
        const count = rnd() < 0.8 ? 1 : 2;
        for (let k = 0; k < count; k++) parents.add(int(0, i - 1));
        for (const p of parents) depends.push({ kind: 'work', node_key: `n-${p}` });
      }
      const labels = new Set<string>();
      const labelCount = int(1, 3);
      while (labels.size < labelCount) labels.add(pick(LABELS));
      nodes.push({
        node_key: `n-${i}`,
        priority: int(1, 5),
        fairness_key: pick(TENANTS),
        depends_on: depends,
        payload: {
          attempt_budget: int(1, 3),
          instructions: instructions(),
          issue: String(int(1000, 99999)),
          labels: [...labels],
          ordinal: i,
          repository: REPOSITORY,
          task: pick(TASKS),
        },
      });
    }
    return nodes;
  };

  /** Envelope mode: admissions stop for good once one would cross the watermark. */
  let closing = false;
  let refusedByReserve = 0;
  /** Envelope mode: whether an admission `built` at `at` fits; flips to closing at the watermark. */
  const admissionFits = (id: string, actor: Actor, at: number, built: BuiltRequest, claims: number, groups: number): boolean => {
    if (fill === undefined) return true;
    const commit = buildCommit(w.state, { id, kind: built.kind, parameters: built.parameters, actor, at, operations: built.operations });
    const commitBytes = Buffer.byteLength(canonicalize(commit as unknown as JsonValue)) + 1;
    try {
      if (claims === 0) checkSubmitFits(w.state, commitBytes, built.operations.filter((op) => op.kind === 'Work').map(() => POOL));
      else checkGrantFits(w.state, commitBytes, claims, Array.from({ length: groups }, () => POOL));
      return true;
    } catch (e) {
      if (!isProtocolError(e) || e.code !== 'ledger_limit') throw e;
      const budget = ledgerBudget(w.state);
      if (budget.bytes + commitBytes > fill.ledgerBytes) {
        closing = true;
        if (fillReport !== undefined) Object.assign(fillReport, { admittedBytes: budget.bytes, reserveAtWatermark: budget.reserve });
      } else refusedByReserve += 1;
      return false;
    }
  };

  const submit = (): boolean => {
    if (closing) return false;
    const graphId = `g-${++graphSeq}`;
    const at = tick(); // before graphNodes: the same PRNG order as before this mode existed
    const nodes = graphNodes();
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
    const genesis = publish('submit', producer, (at) => bootstrapRequest(policy, 'epoch-1', graphNodes(), { graphId: `g-${++graphSeq}`, at }));
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
    const closedBytes = ledgerBudget(w.state).bytes;
    // Fill the rest of the reserve with closure writes only: grants_paused control pairs, as long
    // as a whole pair stays within the all-writes bound (no admission, nothing owed).
    let controls = 0;
    for (;;) {
      // The resume commit is the longer of the pair (its reason is); the clock may add digits: + 64.
      const built = control('grants_paused', false, 'maintenance_window_end');
      const trial = buildCommit(w.state, { id: `r-control-${seq + 1}`, kind: built.kind, parameters: built.parameters, actor: admin, at: t + 2500, operations: built.operations });
      const pairBytes = 2 * (Buffer.byteLength(canonicalize(trial as unknown as JsonValue)) + 1) + 64;
      const budget = ledgerBudget(w.state);
      try {
        checkEnvelope({ ledger_bytes: fill.ledgerBytes, recovery_bytes: fill.recoveryBytes }, { before: budget.bytes, bytes: budget.bytes + pairBytes, reserve: budget.reserve, admits: false, optional: false });
      } catch (e) {
        if (isProtocolError(e) && e.code === 'ledger_limit') break;
        throw e;
      }
      publish('control', admin, () => control('grants_paused', true, 'maintenance_window'));
      publish('control', admin, () => control('grants_paused', false, 'maintenance_window_end'));
      controls += 2;
    }
    const budget = ledgerBudget(w.state);
    if (fillReport !== undefined) {
      Object.assign(fillReport, {
        watermark: fill.ledgerBytes, recovery: fill.recoveryBytes, closedBytes, finalBytes: budget.bytes, finalReserve: budget.reserve,
        admissionsRefusedByReserve: refusedByReserve, paddingControls: controls,
      });
    }
  }
  return { text: w.text(), commits: w.lines.length };
}

const HERE = dirname(fileURLToPath(import.meta.url));
export const LEDGER_CACHE = join(HERE, 'results', 'ledgers');

export interface CachedLedger {
  path: string;
  bytes: number;
  commits: number;
  /** Generation time of this call, or null when the cached file was reused. */
  generatedMs: number | null;
  /** Generation time recorded when the cached file was written. */
  originalMs: number | null;
  stats: GenerationStats | null;
}

/** Generates (or reuses) `bench/results/ledgers/gen-v{version}-{bytes}-s{seed}.jsonl`. */
export function cachedLedger(targetBytes: number, seed: number): CachedLedger {
  const base = join(LEDGER_CACHE, `gen-v${GENERATOR_VERSION}-${targetBytes}-s${seed}`);
  const path = `${base}.jsonl`;
  const metaPath = `${base}.meta.json`;
  if (existsSync(path) && existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { bytes: number; commits: number; generatedMs?: number; stats?: GenerationStats };
    return { path, bytes: meta.bytes, commits: meta.commits, generatedMs: null, originalMs: meta.generatedMs ?? null, stats: meta.stats ?? null };
  }
  mkdirSync(LEDGER_CACHE, { recursive: true });
  const stats: GenerationStats = { byKind: {}, planMs: 0, noGrant: 0 };
  const start = performance.now();
  const { text, commits } = generateLedger(targetBytes, seed, stats);
  const generatedMs = performance.now() - start;
  const bytes = Buffer.byteLength(text);
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  writeFileSync(metaPath, `${JSON.stringify({ targetBytes, seed, version: GENERATOR_VERSION, bytes, commits, generatedMs, stats }, null, 2)}\n`);
  return { path, bytes, commits, generatedMs, originalMs: generatedMs, stats };
}

/** Generates (or reuses) `bench/results/ledgers/env-v{version}-W{ledger}-R{recovery}-s{seed}.jsonl` (see EnvelopeFill). */
export function cachedEnvelopeLedger(fill: EnvelopeFill, seed: number): CachedLedger & { fill: EnvelopeFillReport } {
  const base = join(LEDGER_CACHE, `env-v${GENERATOR_VERSION}-W${fill.ledgerBytes}-R${fill.recoveryBytes}-s${seed}`);
  const path = `${base}.jsonl`;
  const metaPath = `${base}.meta.json`;
  if (existsSync(path) && existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { bytes: number; commits: number; generatedMs?: number; stats?: GenerationStats; fill: EnvelopeFillReport };
    return { path, bytes: meta.bytes, commits: meta.commits, generatedMs: null, originalMs: meta.generatedMs ?? null, stats: meta.stats ?? null, fill: meta.fill };
  }
  mkdirSync(LEDGER_CACHE, { recursive: true });
  const stats: GenerationStats = { byKind: {}, planMs: 0, noGrant: 0 };
  const report: Partial<EnvelopeFillReport> = {};
  const start = performance.now();
  const { text, commits } = generateLedger(Infinity, seed, stats, fill, report);
  const generatedMs = performance.now() - start;
  const bytes = Buffer.byteLength(text);
  // The writer already validated every commit by replay; these are the mode's own promises.
  if (report.admittedBytes === undefined) throw new Error('envelope fill: no admission reached the watermark');
  if (bytes + (report.finalReserve ?? 0) > fill.ledgerBytes + fill.recoveryBytes) throw new Error(`envelope fill: ${bytes} bytes past the all-writes bound`);
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  writeFileSync(metaPath, `${JSON.stringify({ fill: report, seed, version: GENERATOR_VERSION, bytes, commits, generatedMs, stats }, null, 2)}\n`);
  return { path, bytes, commits, generatedMs, originalMs: generatedMs, stats, fill: report as EnvelopeFillReport };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1] && process.argv[2] === '--envelope') {
  // tsx bench/generate.ts --envelope LEDGER_BYTES RECOVERY_BYTES [SEED] [OUT]
  const fill = { ledgerBytes: Number(process.argv[3] ?? 4 * 2 ** 20), recoveryBytes: Number(process.argv[4] ?? 2 ** 20) };
  const stats: GenerationStats = { byKind: {}, planMs: 0, noGrant: 0 };
  const report: Partial<EnvelopeFillReport> = {};
  const start = performance.now();
  const { text, commits } = generateLedger(Infinity, Number(process.argv[5] ?? 1), stats, fill, report);
  console.log(JSON.stringify({ bytes: Buffer.byteLength(text), commits, ms: Math.round(performance.now() - start), fill: report, stats }, null, 1));
  if (process.argv[6] !== undefined) writeFileSync(process.argv[6], text);
} else if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = Number(process.argv[2] ?? 1 << 20);
  const seed = Number(process.argv[3] ?? 1);
  const stats: GenerationStats = { byKind: {}, planMs: 0, noGrant: 0 };
  const start = performance.now();
  const { text, commits } = generateLedger(target, seed, stats);
  const ms = performance.now() - start;
  console.log(JSON.stringify({ bytes: Buffer.byteLength(text), commits, ms: Math.round(ms), stats }, null, 1));
  if (process.argv[4] !== undefined) writeFileSync(process.argv[4], text);
}
