/**
 * The operating-envelope section of `npm run bench` (issue 11 §5, spec 7.17 last paragraph):
 * one table per run, written to bench/results/envelope.md and latest.json, from measurements
 * taken in this run (run.ts), as ratios to the JSON.parse floor of the same bytes:
 *   - cold replay time and peak RSS over the floor's, per ledger size;
 *   - incremental replay per appended commit;
 *   - contended CAS: retries, pushes per committed call, exhausted calls, grants/s at 1/2/4/8;
 *   - per-Claim finalize writes: ledger commits (and bytes) a Claim costs from grant to release,
 *     counted on the generated ledgers' own lines;
 *   - the ledger at the watermark plus its full reserve (bench/generate.ts `EnvelopeFill`): how it
 *     was filled, as fractions of W and W + Rv (its replay figures are a row of the replay table);
 *   - GitHub requests per gate-observation refresh (bench/observations.ts).
 * Sections with no rows (--only-section=envelope) are left out.
 */
import { readFileSync } from 'node:fs';
import type { EnvelopeFillReport } from './generate.ts';
import type { ObservationRequestsRow } from './observations.ts';

export interface FinalizeRow { label: string; claims: number; grants: number; byKind: Record<string, number>; writesPerClaim: number; lifecycleBytesPerClaim: number }

const LIFECYCLE = new Set(['dispatch', 'finish', 'result', 'release', 'delivery_failure']);

/** Counts, on a ledger's lines, the Claims granted and the lifecycle commits that finalize them. */
export function finalizeWrites(label: string, path: string): FinalizeRow {
  const text = readFileSync(path, 'utf8');
  const byKind: Record<string, number> = {};
  let claims = 0;
  let grants = 0;
  let lifecycleBytes = 0;
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    const commit = JSON.parse(line) as { request: { kind: string }; operations: Array<{ kind: string }> };
    const kind = commit.request.kind;
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    if (kind === 'dispatch_next') {
      grants += 1;
      claims += commit.operations.filter((op) => op.kind === 'Claim').length;
    }
    if (LIFECYCLE.has(kind)) lifecycleBytes += Buffer.byteLength(line) + 1;
  }
  const lifecycle = Object.entries(byKind).filter(([k]) => LIFECYCLE.has(k)).reduce((a, [, n]) => a + n, 0);
  return { label, claims, grants, byKind, writesPerClaim: claims === 0 ? 0 : (lifecycle + grants) / claims, lifecycleBytesPerClaim: claims === 0 ? 0 : lifecycleBytes / claims };
}

export interface EnvelopeLedgerRow {
  label: string;
  bytes: number;
  commits: number;
  floorMs: number | null;
  coldMs: number | null;
  floorCpuMs: number | null;
  coldCpuMs: number | null;
  floorRssMiB: number | null;
  replayRssMiB: number | null;
  appendMedianMs: number | null;
  appendMaxMs: number | null;
}

export interface EnvelopeContentionRow { store: string; processes: number; grants: number; grantsPerSecond: number; conflicts: number; pushesPerCommitted: number; exhausted: number; longestLosingStreak: number; cpuPerAttemptMs: number }

export interface EnvelopeAttemptCostRow {
  store: string;
  read: { node: number; git: number; daemon: number };
  cas: { node: number; git: number; daemon: number };
  publisher: number;
  spawnMs: number;
  total: number;
}

const f = (n: number | null, d = 1): string => (n === null ? '-' : n.toFixed(d));
const ratio = (a: number | null, b: number | null): string => (a === null || b === null || b === 0 ? '-' : `${(a / b).toFixed(2)}×`);

function md(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function envelopeMarkdown(input: {
  date: string;
  node: string;
  quick: boolean;
  ledgers: EnvelopeLedgerRow[];
  contention: EnvelopeContentionRow[];
  finalize: FinalizeRow[];
  requests: Array<{ store: string; operation: string; requests: number }>;
  observations: ObservationRequestsRow[];
  fill: Array<EnvelopeFillReport & { label: string; bytes: number }>;
  startup: Array<{ command: string; medianMs: number; nodeMs: number; overNode: number }>;
  publication: Array<{ label: string; bytes: number; publishMs: number; hashObjectMs: number; ratio: number; publishCpuMs: number; hashObjectCpuMs: number; cpuRatio: number; hashOnlyMs: number }>;
  attemptCost?: EnvelopeAttemptCostRow[];
}): string {
  const out: string[] = [];
  out.push(`Operating envelope — ${input.date}, node ${input.node}${input.quick ? ' (--quick)' : ''}. Ratios are measured within this run on the same bytes.`);
  out.push('');
  out.push('Replay (floor = read + split + JSON.parse of the same lines, best of 3 in one fresh process; CPU = user + system time of that process, less sensitive than wall time to a loaded machine; RSS ratio = peak RSS of a fresh process replaying over that of a fresh process running the floor):');
  out.push('');
  out.push(md(['ledger', 'MiB', 'commits', 'cold / floor (wall)', 'cold / floor (CPU)', 'peak RSS / floor RSS', 'append per commit, median (max) ms'],
    input.ledgers.map((r) => [r.label, (r.bytes / 2 ** 20).toFixed(1), String(r.commits), ratio(r.coldMs, r.floorMs), ratio(r.coldCpuMs, r.floorCpuMs), ratio(r.replayRssMiB, r.floorRssMiB), `${f(r.appendMedianMs, 2)} (${f(r.appendMaxMs, 2)})`])));
  out.push('');
  if (input.fill.length > 0) {
    out.push('Ledger at the watermark plus its full reserve (small Policy limits W = ledger_bytes, Rv = recovery_bytes; admissions while they fit, closure of every admitted item after the watermark, then grants_paused control pairs up to the all-writes bound bytes + reserve ≤ W + Rv):');
    out.push('');
    out.push(md(['ledger', 'W', 'Rv', 'admitted bytes / W', 'owed reserve at watermark / Rv', 'lifecycle closure bytes / Rv', 'control padding bytes / Rv', 'final bytes / (W + Rv)', 'owed at end', 'admissions refused by the all-writes bound'],
      input.fill.map((r) => [r.label, String(r.watermark), String(r.recovery), ratio(r.admittedBytes, r.watermark), ratio(r.reserveAtWatermark, r.recovery), ratio(r.closedBytes - r.admittedBytes, r.recovery), ratio(r.finalBytes - r.closedBytes, r.recovery), ratio(r.finalBytes, r.watermark + r.recovery), String(r.finalReserve), String(r.admissionsRefusedByReserve)])));
    out.push('');
  }
  if (input.contention.length > 0) {
    out.push('Contended compare-and-swap (N dispatchers loop single-Claim dispatch_next on one queue with the default retry budget; remote-cli: a `fairway --remote origin dispatch-next` process per call, each dispatcher in its own clone of a queue served by `git daemon` on 127.0.0.1; remote: the same with one warm process per dispatcher; local: warm processes on one local repository):');
    out.push('');
    out.push(md(['store', 'dispatchers', 'grants', 'grants/s', 'vs 1 dispatcher', 'CAS retries', 'pushes per committed call', 'calls that exhausted retries', 'longest losing streak', 'CPU per attempt ms'],
      input.contention.map((r) => {
        const one = input.contention.find((o) => o.store === r.store && o.processes === 1)?.grantsPerSecond ?? null;
        return [r.store, String(r.processes), String(r.grants), r.grantsPerSecond.toFixed(1), ratio(r.grantsPerSecond, one), String(r.conflicts), r.pushesPerCommitted.toFixed(2), String(r.exhausted), String(r.longestLosingStreak), r.cpuPerAttemptMs.toFixed(0)];
      })));
    out.push('');
  }
  if (input.attemptCost !== undefined && input.attemptCost.length > 0) {
    out.push('CPU of one publication attempt (ms; a warm dispatcher, each attempt after another writer added a commit; this process / its git processes / the git daemon side):');
    out.push('');
    out.push(md(['store', 'read: node', 'read: git', 'read: daemon', 'CAS: node', 'CAS: git', 'CAS: daemon', 'replay tail + build + validate + confirm', 'one spawn() in node', 'total'],
      input.attemptCost.map((r) => [r.store, f(r.read.node), f(r.read.git), f(r.read.daemon), f(r.cas.node), f(r.cas.git), f(r.cas.daemon), f(r.publisher), f(r.spawnMs), f(r.total)])));
    out.push('');
  }
  out.push('Per-Claim finalize writes (generated ledgers: grant + dispatch started/bound + finish + result + release + delivery failures, per Claim granted):');
  out.push('');
  out.push(md(['ledger', 'Claims', 'grants', 'writes per Claim', 'lifecycle bytes per Claim'],
    input.finalize.map((r) => [r.label, String(r.claims), String(r.grants), r.writesPerClaim.toFixed(2), r.lifecycleBytesPerClaim.toFixed(0)])));
  out.push('');
  if (input.requests.length > 0) {
    out.push('GitHub requests per publication (real Publisher against the schema-validated fake GitHub):');
    out.push('');
    out.push(md(['store', 'operation', 'requests'], input.requests.map((r) => [r.store, r.operation, String(r.requests)])));
    out.push('');
  }
  if (input.observations.length > 0) {
    out.push('GitHub requests per gate-observation refresh (real observer, `observePool`, against the schema-validated fake GitHub; N Works each gated on its own Issue or pull request; first refresh, an unchanged one, one after every resource changed):');
    out.push('');
    out.push(md(['gates', 'refresh', 'requests', 'requests per gate', 'Observations written'],
      input.observations.map((r) => [String(r.gates), r.refresh, String(r.requests), (r.requests / r.gates).toFixed(2), String(r.written)])));
    out.push('');
  }
  if (input.publication.length > 0) {
    out.push('Local Git publication (warm publisher: version check + build + validate + write + CAS) vs `git hash-object -w` storing the same blob (in a repository that lacks it), interleaved; wall medians and mean CPU of the process trees:');
    out.push('');
    out.push(md(['ledger', 'bytes', 'publish / hash-object (wall)', 'publish / hash-object (CPU)', 'publish ms', 'hash-object ms', 'hash-object of an already stored blob ms'],
      input.publication.map((r) => [r.label, String(r.bytes), `${r.ratio.toFixed(2)}×`, `${r.cpuRatio.toFixed(2)}×`, r.publishMs.toFixed(1), r.hashObjectMs.toFixed(1), r.hashOnlyMs.toFixed(1)])));
    out.push('');
  }
  if (input.startup.length > 0) {
    out.push('CLI start-up (whole processes, interleaved, medians) vs `node -e 0`:');
    out.push('');
    out.push(md(['command', 'over node -e 0', 'extra ms'], input.startup.map((r) => [r.command, `${r.overNode.toFixed(2)}×`, (r.medianMs - r.nodeMs).toFixed(0)])));
    out.push('');
  }
  return out.join('\n');
}
