/**
 * The read surfaces present the same facts for the same ledger (docs/architecture.md "the front
 * door": CLI, console, MCP server and TUI all read one engine through `Projection`). Each
 * surface's answer comes from its real code path (tests/support/surfaces.ts); the facts they
 * share are compared, never their formatting:
 *
 * 1. Work by state, Claims by state, open (unreleased) dispatch groups, unresolved launches,
 *    delivery barriers, ready Work and the backlog by (pool, class, key);
 * 2. the predicted grant order (the line) and the next selection;
 * 3. each blocked Work's reason code and blocking path;
 * 4. fairness figures: clocks, strides, eligible classes and keys, grants per class and key;
 * 5. receipts of past requests (historical explanations), compacted ones included;
 * 6. time travel: the console pinned to a past commit = the CLI on the ledger cut there.
 *
 * Two ledgers: the reference-written ledger-1m.jsonl, and a lifecycle-bench queue with every
 * Claim, barrier, gate and group state, a compaction checkpoint and a grants pause
 * (tests/support/surfaces-queue.ts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayLedger, type Projection } from '../../engine/replay/index.ts';
import { metricsResponse } from '../../lib/console/metrics.ts';
import { ConsoleRuntime } from '../../lib/console/runtime.ts';
import { openClaimTargets } from '../../lib/console/views/admin-targets.ts';
import { explorerView, parseExplorerQuery } from '../../lib/console/views/explorer.ts';
import { graphView } from '../../lib/console/views/graph.ts';
import { receiptView } from '../../lib/console/views/receipt.ts';
import { workDetail } from '../../lib/console/views/work.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import type { LedgerStore } from '../../lib/store/types.ts';
import { MemoryStore } from '../support/memory-store.ts';
import { describeReference, missingReference, REFERENCE_ROOT } from '../support/reference.ts';
import { surfacesQueue, type SurfacesQueue } from '../support/surfaces-queue.ts';
import {
  cliFacts, cliReplayFacts, consoleFacts, fairway, fairwayAt, fairwayOrCode, ledgerFile, mcpFacts, mcpSession, nonZero, prefixText, tuiFacts, type Facts,
} from '../support/surfaces.ts';
import { fairnessAgreement, receiptAgreement } from '../support/surfaces-history.ts';

const LEDGER_1M = 'gh-aw-generated/ledger-1m.jsonl';

function consoleRuntime(store: LedgerStore, now: number): ConsoleRuntime {
  return new ConsoleRuntime({ source: { kind: 'ledger', ledger: '-' }, demo: false, mode: 'local', pollMs: 5000, principal: '1', fixedNow: now }, store);
}

async function memoryStore(text: string): Promise<MemoryStore> {
  const store = new MemoryStore('surfaces');
  await store.compareAndSwap(null, new TextEncoder().encode(text), 'ledger');
  return store;
}

const FACTS: ReadonlyArray<keyof Facts> = ['worksByState', 'claimsByState', 'openGroups', 'unresolvedLaunches', 'barriers', 'ready', 'backlog', 'line', 'next', 'blocked', 'positions', 'dependencyPath', 'times'];

function normalized(f: Facts, fact: keyof Facts): unknown {
  const v = f[fact];
  if (fact === 'openGroups' || fact === 'ready') return nonZero(v as Record<string, number>);
  if (fact === 'unresolvedLaunches') return [...(v as string[])].sort();
  if (fact === 'backlog') return [...(v as unknown[][])].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return v;
}

/** Every fact two or more surfaces present is the same on each. */
function expectAgreement(where: string, bySurface: Record<string, Facts>): void {
  for (const fact of FACTS) {
    const having = Object.entries(bySurface).filter(([, f]) => f[fact] !== undefined);
    if (having.length < 2) continue;
    const [first, firstFacts] = having[0]!;
    for (const [surface, facts] of having.slice(1)) {
      expect(normalized(facts, fact), `${where}: ${fact}, ${surface} vs ${first}`).toEqual(normalized(firstFacts, fact));
    }
  }
}

/** All surfaces on the ledger `text` at decision time `asOf` (the console pinned to its last commit: time travel). */
async function agreeOnText(where: string, text: string, asOf: number): Promise<void> {
  const store = await memoryStore(text);
  const file = ledgerFile(text);
  const pools = replayLedger(new TextEncoder().encode(text)).poolNames;
  const mcp = await mcpSession(store, asOf);
  try {
    expectAgreement(where, {
      'CLI stats/state/next/explain': await cliFacts(['--ledger', file], asOf, pools),
      'CLI replay --json': await cliReplayFacts(['--ledger', file], asOf),
      MCP: await mcpFacts(mcp),
      TUI: await tuiFacts(store, asOf),
    });
  } finally {
    await mcp.close();
  }
}

/** The console pinned to each of `commits` of `live` (`?at=`) against the CLI, MCP and TUI on the ledger cut there. */
async function timeTravel(name: string, runtime: ConsoleRuntime, live: Projection, commits: readonly string[]): Promise<number> {
  let checked = 0;
  for (const id of commits) {
    const view = await runtime.view(id);
    const position = live.commitPosition(id)!;
    const text = prefixText(live, position + 1);
    const store = await memoryStore(text);
    const file = ledgerFile(text);
    const mcp = await mcpSession(store, view.asOf);
    try {
      expect(view.projection.tip).toBe(id);
      expectAgreement(`${name} at commit #${position} ${id}`, {
        console: consoleFacts(view.projection, view.asOf),
        'CLI stats/state/next/explain': await cliFacts(['--ledger', file], view.asOf, view.projection.poolNames),
        'CLI replay --json': await cliReplayFacts(['--ledger', file], view.asOf),
        MCP: await mcpFacts(mcp),
        TUI: await tuiFacts(store, view.asOf),
      });
    } finally {
      await mcp.close();
    }
    checked++;
  }
  return checked;
}

describeReference(missingReference([LEDGER_1M]).length === 0, 'surfaces agree on the reference-written ledger-1m.jsonl', () => {
  const text = () => readFileSync(new URL(LEDGER_1M, REFERENCE_ROOT), 'utf8');

  it('at its tip and pinned to every 48th commit: counts, groups, barriers, readiness, backlog, the line, next, blocked Work', async () => {
    const store = await memoryStore(text());
    const live = replayLedger((await store.read()).bytes!);
    const runtime = consoleRuntime(store, live.lastCommit!.at + 1);
    const sampled = live.commits.filter((_, i) => i % 48 === 47 || i === live.commits.length - 1).map((c) => c.id);
    expect(await timeTravel('ledger-1m', runtime, live, sampled)).toBe(12);
    // Live: the console's live view at its clock, the others at the same time.
    const view = await runtime.view(null);
    expect(view.asOf).toBe(live.lastCommit!.at + 1);
    await agreeOnText('ledger-1m live', text(), view.asOf);
    expectAgreement('ledger-1m live (console)', { console: consoleFacts(view.projection, view.asOf), CLI: await cliFacts(['--ledger', ledgerFile(text())], view.asOf, live.poolNames) });
  }, 240_000);

  it('fairness figures and every grant\'s receipt agree at its tip and pinned to the middle of its history', async () => {
    const store = await memoryStore(text());
    const live = replayLedger((await store.read()).bytes!);
    const runtime = consoleRuntime(store, live.lastCommit!.at + 1);
    const file = ledgerFile(text());
    expect(await fairnessAgreement(runtime, null, ['--ledger', file])).toBe(240);
    const middle = live.commits[Math.floor(live.commits.length / 2)]!.id;
    expect(await fairnessAgreement(runtime, middle, ['--ledger', ledgerFile(prefixText(live, live.commitPosition(middle)! + 1))])).toBeGreaterThan(0);
    const mcp = await mcpSession(store, live.lastCommit!.at + 1);
    try {
      expect(await receiptAgreement(runtime, live, ['--ledger', file], mcp, 10)).toBe(6 + Math.ceil((live.requestCount - 6) / 10));
    } finally {
      await mcp.close();
    }
  }, 240_000);
});

describe('surfaces agree on a lifecycle-bench queue (every Claim, barrier, gate and group state; a checkpoint; grants paused)', () => {
  let q: SurfacesQueue;
  let runtime: ConsoleRuntime;
  let live: Projection;
  let repo: string[];
  beforeAll(async () => {
    q = await surfacesQueue();
    const store = new LocalGitStore({ repo: q.bench.dir });
    runtime = consoleRuntime(store, q.asOf);
    live = (await runtime.view(null)).projection;
    repo = ['--repo', q.bench.dir];
  }, 120_000);
  afterAll(async () => q?.bench.close());

  it('the queue has what the comparisons need', () => {
    expect(live.checkpoint).toBeDefined();
    expect(live.controls.grants_paused).toBe(true);
    const states = (kind: 'claims' | 'works', field: 'state' | 'barrier') => new Set([...live[kind]()].map((r) => (r as unknown as Record<string, string>)[field]));
    expect(states('claims', 'state')).toEqual(new Set(['open', 'completed', 'cancelled']));
    expect(states('works', 'state')).toEqual(new Set(['available', 'claimed', 'completed', 'cancelled']));
    expect(states('works', 'barrier')).toEqual(new Set(['none', 'pending', 'verified', 'failed']));
    expect(new Set([...live.dispatches()].map((d) => (d.released ? 'released' : d.state)))).toEqual(new Set(['released', 'bound', 'uncertain', 'reserved']));
    expect([...live.observations()].map((o) => o.state).sort()).toEqual(['ready', 'ready', 'waiting']);
  });

  it('live at its tip: CLI on the queue branch, the console\'s live view, an MCP snapshot and the TUI', async () => {
    const store = new LocalGitStore({ repo: q.bench.dir });
    const view = await runtime.view(null);
    const mcp = await mcpSession(store, q.asOf);
    try {
      const cli = await cliFacts(repo, q.asOf, live.poolNames);
      expectAgreement('bench live', {
        console: consoleFacts(view.projection, view.asOf),
        'CLI stats/state/next/explain': cli,
        'CLI replay --json': await cliReplayFacts(repo, q.asOf),
        MCP: await mcpFacts(mcp),
        TUI: await tuiFacts(store, q.asOf),
      });
      // Grants are paused: nothing is next, every available Work says so, and the line is what resuming would do.
      expect(cli.next).toEqual({ default: 'grants_paused' });
      expect(new Set(Object.values(cli.blocked!).map((b) => b.reason))).toEqual(new Set(['grants_paused']));
      expect(cli.line!.default!.length).toBeGreaterThan(2);
    } finally {
      await mcp.close();
    }
  }, 120_000);

  it('metrics: the console\'s /metrics = `stats --format openmetrics` of the same queue at the same time', async () => {
    const cli = await fairwayAt(q.asOf, [...repo, 'stats', '--format', 'openmetrics']);
    expect(cli.code).toBe(0);
    const response = await metricsResponse(() => runtime, async () => true);
    expect(response.status).toBe(200);
    const samples = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('fairway_store_stale'));
    const consoleSamples = samples(await response.text());
    expect(consoleSamples.length).toBeGreaterThan(10);
    expect(samples(cli.out)).toEqual(consoleSamples);
  });

  it('time travel: the console pinned to each retained commit (the checkpoint root first) = the CLI, MCP and TUI on the ledger cut there', async () => {
    expect(await timeTravel('bench', runtime, live, live.commits.map((c) => c.id))).toBe(live.commitCount);
  }, 240_000);

  it('time travel before the checkpoint: the uncompacted ledger pinned to each of its commits', async () => {
    const store = await memoryStore(q.uncompacted);
    const before = replayLedger((await store.read()).bytes!);
    const pinned = consoleRuntime(store, q.asOf);
    expect(await timeTravel('bench before compaction', pinned, before, before.commits.map((c) => c.id))).toBe(before.commitCount);
  }, 240_000);

  it('fairness figures: console /fairness = the CLI\'s clocks, explanations, backlog and grants, live and pinned before the pause', async () => {
    // Only grant-4 is retained: the owed sums cover its two decisions (older grants' are at the prior Git commit).
    expect(await fairnessAgreement(runtime, null, repo)).toBe(2);
    const prior = live.commits[live.commitCount - 2]!.id;
    expect(await fairnessAgreement(runtime, prior, ['--ledger', ledgerFile(prefixText(live, live.commitCount - 1))])).toBe(2);
  }, 120_000);

  it('receipts of every request: CLI explain --request-id = the console receipt (= MCP explain of each Claim), compacted grants through the checkpoint\'s prior Git commit', async () => {
    const mcp = await mcpSession(new LocalGitStore({ repo: q.bench.dir }), q.asOf);
    try {
      expect(await receiptAgreement(runtime, live, repo, mcp)).toBe(live.requestCount);
    } finally {
      await mcp.close();
    }
  }, 120_000);

  it('next --work-id says why a Work is not in the line under the line\'s own assumptions (grants resumed): explain\'s reason on the queue just before the pause', async () => {
    const beforePause = ledgerFile(prefixText(live, live.commitCount - 1));
    const line = new Set((await fairway(q.asOf, ...repo, 'next', '--pool', 'default', '--limit', '4096', '--as-of', String(q.asOf))).entries.map((e: { work_id: string }) => e.work_id));
    let outside = 0;
    for (const w of [...live.works()].filter((x) => x.state === 'available')) {
      const next = (await fairway(q.asOf, ...repo, 'next', '--pool', 'default', '--work-id', w.workId, '--as-of', String(q.asOf))).work;
      expect(next.in_line).toBe(line.has(w.workId));
      if (next.in_line) continue;
      outside++;
      const unpaused = await fairway(q.asOf, '--ledger', beforePause, 'explain', '--pool', 'default', '--work-id', w.workId, '--as-of', String(q.asOf));
      // Eligible yet not in the line: held by its key's per-account limit (next --help says so).
      expect(next.reason, `${w.nodeKey}: next --work-id vs explain --work-id with grants resumed`).toBe(unpaused.eligible ? 'account_capacity_blocked' : unpaused.reason);
    }
    expect(outside).toBeGreaterThan(5);
  }, 120_000);

  it('a gate\'s satisfaction on the Work page and the graph page is the engine\'s verdict, as CLI explain shows it', async () => {
    const byKey = (k: string) => [...live.works()].find((w) => w.nodeKey === k)!;
    const g3 = byKey('G3');
    const g4 = byKey('G4');
    // G4 waits on Issue #7 alone: explain names the stale observation on its blocking path.
    const x = await fairway(q.asOf, '--ledger', ledgerFile(prefixText(live, live.commitCount - 1)), 'explain', '--pool', 'default', '--work-id', g4.workId, '--as-of', String(q.asOf));
    expect(x.reason).toBe('observation_stale');
    const gate = x.blocking_path.find((s: { kind: string }) => s.kind === 'issue').gate as string;
    // G3 waits on Work X first, then on the same gate: its page must not call the gate satisfied.
    for (const w of [g3, g4]) {
      const d = workDetail(live, w.workId, q.asOf, 'github.com')!;
      const dep = d.dependencies.find((e) => e.kind === 'gate' && e.gate.gate === gate)!;
      expect(dep.satisfied, `${w.nodeKey}'s Depends on table`).toBe(false);
    }
    // The graph holding G3 (and not G4) draws the gate unsatisfied too; Issue #8 (fresh, ready) is satisfied.
    const g = graphView(live, g3.graphId, q.asOf, null)!;
    expect(g.rows.find((r) => r.kind === 'issue' && r.text.endsWith('#7'))?.status).toBe('unsatisfied');
    expect(g.rows.find((r) => r.kind === 'issue' && r.text.endsWith('#8'))?.status).toBe('satisfied');
  });

  it('the line\'s count is labelled as what it counts: `next` text says the pool\'s available Work, as `stats` counts it, not "ready"', async () => {
    const stats = await fairway(q.asOf, ...repo, 'stats');
    const pool = stats.pools.find((p: { pool: string }) => p.pool === 'default');
    // Available Work is not all ready here (blocked, held, paused): the two counts differ.
    expect(pool.available).not.toBe(pool.eligible);
    const r = await fairwayAt(q.asOf, [...repo, 'next', '--pool', 'default', '--as-of', String(q.asOf)]);
    expect(r.code).toBe(0);
    const count = /^(\d+) (\w+); \d+ of \d+ logical Claims outstanding/m.exec(r.out);
    expect([Number(count?.[1]), count?.[2]]).toEqual([pool.available, 'available']);
  });

  it('a commit compacted into the checkpoint is dated by its receipt on the console too (explorer durations, admin targets), as on the CLI', async () => {
    const rows = (await fairway(q.asOf, ...repo, 'state', '--limit', '256')).rows as Array<Record<string, any>>;
    const e = [...live.works()].find((w) => w.nodeKey === 'E')!;
    const claim = rows.find((r) => r.kind === 'claim' && r.work_id === e.workId)!;
    // E's Claim was granted before the checkpoint: only its receipt dates it.
    expect(live.commitInfo(live.claim(claim.claim_id)!.commitId)).toBeUndefined();
    expect(claim.granted_at).toBeGreaterThan(rows.find((r) => r.kind === 'work' && r.work_id === e.workId)!.admitted_at);
    const row = explorerView(live, q.asOf, { ...parseExplorerQuery({}), q: 'E' }).rows.find((r) => r.workId === e.workId)!;
    expect(row.runningMs).toBe(q.asOf - claim.granted_at);
    expect(openClaimTargets(live, 'github.com').find((t) => t.claimId === claim.claim_id)!.grantedAt).toBe(claim.granted_at);
  });

  it('a compacted grant without Git history: history_compacted on the CLI (--ledger) and the console receipt', async () => {
    const file = ledgerFile(prefixText(live, live.commitCount));
    const r = await fairwayOrCode(q.asOf, '--ledger', file, '--request-id', 'grant-1', 'explain');
    expect(r.json.error.code).toBe('history_compacted');
    const prior = live.checkpoint!.priorGitSha;
    expect(r.json.error.message).toContain(prior);
    expect(receiptView(live, 'grant-1', 'github.com')!.compacted).toEqual({ code: 'history_compacted', checkpoint: live.commits[0]!.id, priorGitSha: prior });
  });
});
