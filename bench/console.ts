/**
 * Console benchmark (issue 5 "Benchmark"): server render of the overview and
 * the explorer for a ledger with 4,096 Work nodes, through the real
 * production Next.js server (HTTP, full HTML), target < 1 s. Reported with the
 * JSON.parse floor of the same ledger bytes, as the other benchmarks do.
 *
 *   npx tsx bench/console.ts            (prints a table and the JSON rows)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { JsonObject } from '../engine/json.ts';
import { replayLedger } from '../engine/replay/index.ts';
import { submitRequest, type SubmitNode, bootstrapRequest } from '../engine/requests/operations.ts';
import { LedgerWriter, defaultPolicy } from '../engine/requests/writer.ts';
import type { Actor } from '../engine/schema/index.ts';
import { DEFAULT_RETRY } from '../engine/schema/defaults.ts';
import { startConsole } from '../lib/console/server.ts';
import { MAX_LINE } from '../engine/scheduler/line.ts';
import { explorerView, parseExplorerQuery } from '../lib/console/views/explorer.ts';
import { lineView } from '../lib/console/views/line.ts';
import { overviewView } from '../lib/console/views/overview.ts';

export const CONSOLE_TARGET_MS = 1000;
/** Issue 14 §1: the line page and a ready Work's page render in under 300 ms warm for 4,096 ready Work. */
export const LINE_TARGET_MS = 300;
const WORK = 4096;
const REPO = 'bench/console';
const KEYS = ['alpha', 'beta', 'gamma', 'delta'];

export interface ConsoleBenchRow {
  page: string;
  works: number;
  ledgerBytes: number;
  /** First render of the page (its code loads on first use; the ledger is already replayed). */
  coldMs: number;
  warmMedianMs: number;
  warmMaxMs: number;
  htmlBytes: number;
  /** The page's view model alone (no React), median. */
  viewMedianMs: number;
  floorMs: number;
  warmOverFloor: number;
  targetMs: number;
  ok: boolean;
}

/**
 * 4,096 Work: 16 graphs of 256 (chains of 8), 4 keys, all classes, 32 grants.
 * `ready`: no dependencies, so all 4,096 Work (less the 32 granted) are ready (the line benchmark).
 */
export function benchLedger(at0 = Date.UTC(2026, 0, 5, 9), o: { ready?: boolean } = {}): { text: string; now: number } {
  const w = new LedgerWriter();
  const producer: Actor = { role: 'producer', principal: '1', repository: REPO };
  const dispatcher: Actor = { role: 'dispatcher', principal: '1', repository: REPO, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '1', run_attempt: 1 };
  const weights = Object.fromEntries(KEYS.map((k) => [k, 1]));
  const policy = defaultPolicy({ repository: REPO, principal: '1', weights, logicalLimit: 256, nativeLimit: 256 });
  // The operating envelope (spec 7.17) owes each open Work its worst-case lifecycle bytes: at the default
  // limits (3 attempts, 4 KiB results, 1 KiB evidence) about 1,500 open Work fill watermark + reserve.
  // 4,096 open Work fit only with lowered limits (a Policy may lower them), so the benchmark lowers them.
  const limits = policy.limits as Record<string, number>;
  limits.result_bytes = 512;
  limits.evidence_bytes = 64;
  ((policy.pools as Record<string, Record<string, unknown>>).default!).retry = { backoff_ms: DEFAULT_RETRY.backoff_ms, max_attempts: 1 };
  let t = at0;
  const graph = (g: number): SubmitNode[] => Array.from({ length: 256 }, (_, i) => ({
    node_key: `g${g}-task-${String(i).padStart(3, '0')}`,
    payload: { plan: `bench task ${g}/${i}`, size: i },
    priority: 1 + ((g + i) % 5),
    fairness_key: KEYS[(g + i) % KEYS.length]!,
    ...(i % 8 === 0 || o.ready === true ? {} : { depends_on: [{ kind: 'work' as const, node_key: `g${g}-task-${String(i - 1).padStart(3, '0')}` }] }),
  }));
  // A commit carries at most 256 operations: the genesis holds the Policy and 255 Work.
  const first = graph(0);
  w.publish('bench-0', producer, (t += 1000), bootstrapRequest(policy as JsonObject, 'bench-epoch', first.slice(0, 255), { graphId: 'graph-00', at: t }));
  w.publish('bench-0b', producer, (t += 1000), submitRequest(w.state, first.slice(255), { graphId: 'graph-00', at: t }));
  for (let g = 1; g < WORK / 256; g++) {
    w.publish(`bench-${g}`, producer, (t += 1000), submitRequest(w.state, graph(g), { graphId: `graph-${String(g).padStart(2, '0')}`, at: t }));
  }
  for (let i = 0; i < 8; i++) w.dispatchNext(`bench-grant-${i}`, dispatcher, (t += 1000), { pool: 'default', max_claims: 4, max_dispatches: 4, max_bytes: 49152 });
  return { text: w.text(), now: t + 60_000 };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timeGet(url: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url} → ${res.status}`);
  return { ms: performance.now() - started, bytes: Buffer.byteLength(body) };
}

export async function runConsoleBench(options: { samples?: number; log?: (line: string) => void } = {}): Promise<ConsoleBenchRow[]> {
  const samples = options.samples ?? 9;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { text, now } = benchLedger();
  const dir = mkdtempSync(join(tmpdir(), 'fairway-console-bench-'));
  const file = join(dir, 'work-queue.jsonl');
  writeFileSync(file, text);
  const ledgerBytes = Buffer.byteLength(text);

  const floors: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    for (const line of text.split('\n')) if (line !== '') JSON.parse(line);
    floors.push(performance.now() - s);
  }
  const floorMs = median(floors);

  const projection = replayLedger(text);
  const viewTimes = { overview: [] as number[], explorer: [] as number[] };
  for (let i = 0; i < samples; i++) {
    let s = performance.now();
    overviewView(projection, now);
    viewTimes.overview.push(performance.now() - s);
    s = performance.now();
    explorerView(projection, now, parseExplorerQuery(new URLSearchParams('key=beta&readiness=ready')));
    viewTimes.explorer.push(performance.now() - s);
  }

  log(`console bench: ${projection.state.works.size} Work, ${ledgerBytes} bytes; starting the production server…`);
  const server = await startConsole({ source: { kind: 'ledger', ledger: file }, port: 0, fixedNow: now, log, warm: false });
  const rows: ConsoleBenchRow[] = [];
  try {
    const startup = await timeGet(`${server.url}/api/tip`);
    rows.push({
      page: 'start-up: first ledger read (cold replay)', works: projection.state.works.size, ledgerBytes, coldMs: Math.round(startup.ms),
      warmMedianMs: 0, warmMaxMs: 0, htmlBytes: startup.bytes, viewMedianMs: 0, floorMs: Math.round(floorMs * 10) / 10,
      warmOverFloor: Math.round((startup.ms / floorMs) * 10) / 10, targetMs: CONSOLE_TARGET_MS, ok: true,
    });
    const pages: Array<[string, string, 'overview' | 'explorer']> = [
      ['overview /', '/', 'overview'],
      ['explorer /work', '/work', 'explorer'],
      ['explorer /work?key=beta&readiness=ready&page=2', '/work?key=beta&readiness=ready&page=2', 'explorer'],
    ];
    for (const [label, path, view] of pages) {
      const cold = await timeGet(`${server.url}${path}`);
      const warm: number[] = [];
      for (let i = 0; i < samples; i++) warm.push((await timeGet(`${server.url}${path}`)).ms);
      const warmMedianMs = median(warm);
      rows.push({
        page: label,
        works: projection.state.works.size,
        ledgerBytes,
        coldMs: Math.round(cold.ms),
        warmMedianMs: Math.round(warmMedianMs),
        warmMaxMs: Math.round(Math.max(...warm)),
        htmlBytes: cold.bytes,
        viewMedianMs: Math.round(median(viewTimes[view]) * 10) / 10,
        floorMs: Math.round(floorMs * 10) / 10,
        warmOverFloor: Math.round((warmMedianMs / floorMs) * 10) / 10,
        targetMs: CONSOLE_TARGET_MS,
        // The target is the steady-state server render; `fairway console` renders each page once before serving.
        ok: warmMedianMs < CONSOLE_TARGET_MS,
      });
    }
  } finally {
    await server.close();
  }
  rows.push(...(await runLineBench(samples, log)));
  return rows;
}

/**
 * The line (issue 14 §1) on 4,096 ready Work: `/next` and the page of the
 * Work at the end of the line (its position needs the whole line). The view
 * column is one full, uncached `predictLine` of the pool; pages reuse a line
 * for 5 s on the same tip (lib/console/views/line.ts), as they do in use.
 */
async function runLineBench(samples: number, log: (line: string) => void): Promise<ConsoleBenchRow[]> {
  const { text, now } = benchLedger(undefined, { ready: true });
  const dir = mkdtempSync(join(tmpdir(), 'fairway-console-bench-line-'));
  const file = join(dir, 'work-queue.jsonl');
  writeFileSync(file, text);
  const ledgerBytes = Buffer.byteLength(text);
  const projection = replayLedger(text);
  const lineTimes: number[] = [];
  let lastId = '';
  let ready = 0;
  for (let i = 0; i < samples; i++) {
    const s = performance.now();
    const v = lineView(projection, now, 'default', MAX_LINE)!;
    lineTimes.push(performance.now() - s);
    lastId = v.line.entries[v.line.entries.length - 1]!.work_id;
    ready = v.line.entries.length;
  }
  const floors: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    for (const line of text.split('\n')) if (line !== '') JSON.parse(line);
    floors.push(performance.now() - s);
  }
  const floorMs = median(floors);
  log(`console bench: the line of ${ready} ready Work; starting the production server…`);
  const server = await startConsole({ source: { kind: 'ledger', ledger: file }, port: 0, fixedNow: now, log, warm: false });
  const rows: ConsoleBenchRow[] = [];
  try {
    await timeGet(`${server.url}/api/tip`);
    for (const [label, path] of [[`line /next (${ready} ready)`, '/next'], [`work page, last of ${ready} in the line`, `/work/${lastId}`]] as const) {
      const cold = await timeGet(`${server.url}${path}`);
      const warm: number[] = [];
      for (let i = 0; i < samples; i++) warm.push((await timeGet(`${server.url}${path}`)).ms);
      const warmMedianMs = median(warm);
      rows.push({
        page: label,
        works: projection.state.works.size,
        ledgerBytes,
        coldMs: Math.round(cold.ms),
        warmMedianMs: Math.round(warmMedianMs),
        warmMaxMs: Math.round(Math.max(...warm)),
        htmlBytes: cold.bytes,
        viewMedianMs: Math.round(median(lineTimes) * 10) / 10,
        floorMs: Math.round(floorMs * 10) / 10,
        warmOverFloor: Math.round((warmMedianMs / floorMs) * 10) / 10,
        targetMs: LINE_TARGET_MS,
        ok: warmMedianMs < LINE_TARGET_MS,
      });
    }
  } finally {
    await server.close();
  }
  return rows;
}

export function formatConsoleBench(rows: readonly ConsoleBenchRow[]): string {
  const head = 'page                                              first ms  warm median  warm max  view ms  floor ms  ×floor  target';
  return [head, ...rows.map((r) =>
    `${r.page.padEnd(50)}${String(r.coldMs).padStart(8)}${String(r.warmMedianMs).padStart(13)}${String(r.warmMaxMs).padStart(10)}${String(r.viewMedianMs).padStart(9)}${String(r.floorMs).padStart(10)}${String(r.warmOverFloor).padStart(8)}  ${r.warmMedianMs === 0 ? '(one-time, before serving)' : `${r.ok ? 'ok' : 'MISSED'} (warm < ${r.targetMs} ms)`}`)].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runConsoleBench();
  console.log(formatConsoleBench(rows));
  console.log(JSON.stringify(rows));
  process.exit(0);
}
