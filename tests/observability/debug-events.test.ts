/**
 * Debug events of a full lifecycle (issue 15 §3, operator reference "Runtime debug logging"):
 * the real CLI on a real Git repository with the GitHub stand-in (submit, fair grant and launch,
 * evidence, activation, finish, verified Result, reconciliation), then the MCP intent server and
 * trusted intent processing. Every event is captured; none may carry a submitted string, an id,
 * the repository, a path, a URL or the token, and every namespace the run touches speaks.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configureDebug, setDebugSink } from '../../lib/debug/log.ts';
import { findRun, setRunStatus } from '../fake-github/routes-actions.ts';
import { createBench, REPOSITORY, TOKEN, type Bench } from '../lifecycle/harness.ts';
import { call, memoryClient } from '../mcp/helpers.ts';
import { benchCli as cli, jobEnv } from '../support/lifecycle-bench.ts';

const LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z work-queue:([a-z]+) ([a-z_]+)((?: [a-z_]+=[A-Za-z0-9_.-]+)*)$/;
const TOUCHED = ['store', 'replay', 'memory', 'scheduler', 'dispatch', 'native', 'reconciler', 'claims', 'delivery', 'effects', 'intents', 'mcp'];

const SUBMITTED = {
  seedNode: 'seednode-4c1f9e',
  seedPlan: 'seedplan-7d2a11 rm -rf /',
  cliNode: 'clinode-0b9e33',
  cliPlan: 'cliplan-51aa07 <script>',
  cliRequest: 'clirequest-e8d4c2',
  launchRequest: 'launchrequest-93be10',
  mcpNode: 'mcpnode-2f6c8d',
  mcpPlan: 'mcpplan-a47e5b secret',
  summary: 'summary-6e0d92',
};

const saved = { ...process.env };
let bench: Bench | undefined;
beforeAll(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith('GITHUB_') || k.startsWith('FAIRWAY_') || k === 'GH_TOKEN' || k === 'DEBUG' || k.endsWith('RUNNER_DEBUG')) delete process.env[k];
});
afterEach(async () => {
  setDebugSink(null);
  configureDebug({});
  await bench?.close();
  bench = undefined;
});
afterAll(() => {
  process.env = saved;
  configureDebug();
});

describe('debug events of a full lifecycle', () => {
  it('carry metadata only (no submitted string, id, repository, path, URL or token) and cover every namespace the run touches', async () => {
    const lines: string[] = [];
    setDebugSink((l) => lines.push(l));
    configureDebug({ DEBUG: 'work-queue:*' });

    bench = await createBench({ nodes: [{ node_key: SUBMITTED.seedNode, payload: { plan: SUBMITTED.seedPlan } }] });
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const dir = mkdtempSync(join(bench.dir, 'debug-'));
    writeFileSync(join(dir, 'task.json'), JSON.stringify({ plan: SUBMITTED.cliPlan }));
    const submitted = await cli(bench, '--request-id', SUBMITTED.cliRequest, 'submit-work', '--file', join(dir, 'task.json'), '--node-key', SUBMITTED.cliNode, '--priority', '2');
    expect(submitted.code).toBe(0);

    jobEnv('770000123456', '.github/workflows/dispatcher.yml');
    const launched = await cli(bench, '--request-id', SUBMITTED.launchRequest, 'launch', '--next', '--max-claims', '1');
    expect(launched.code).toBe(0);
    const [l] = launched.json.launches;
    expect(l).toMatchObject({ outcome: 'bound' });
    expect((await cli(bench, 'evidence', '--dispatch-id', l.dispatch_id)).code).toBe(0);

    writeFileSync(join(dir, 'assignment.json'), String(findRun(bench.fake.state, l.run_id)!.inputs.work_queue_assignment));
    jobEnv(l.run_id, '.github/workflows/worker.lock.yml');
    const activated = await cli(bench, 'activate', '--assignment', join(dir, 'assignment.json'), '--out', join(dir, 'verified.json'));
    expect(activated.code).toBe(0);
    expect((await cli(bench, 'finish', '--dispatch-id', l.dispatch_id, '--handle', 'h1', '--outcome', 'completed')).json).toMatchObject({ ok: true, status: 'committed' });
    const claimId = activated.json.assignment.claims[0].claim_id;
    writeFileSync(join(dir, 'descriptor.json'), JSON.stringify({ summary: SUBMITTED.summary, run_id: l.run_id }));
    writeFileSync(join(dir, 'receipts.json'), JSON.stringify({ schema: 'fairway.delivery/1', dispatch_id: l.dispatch_id, claim_id: claimId, run_id: l.run_id, complete: true, outputs: [] }));
    expect((await cli(bench, 'result', '--claim-id', claimId, '--descriptor', join(dir, 'descriptor.json'), '--evidence', join(dir, 'receipts.json'))).json).toMatchObject({ ok: true, outcome: 'result' });
    setRunStatus(bench.fake.state, l.run_id, 'completed', 'success');
    expect((await cli(bench, 'reconcile', '--all', '--interval-ms', '0')).json.reconciled[0]).toMatchObject({ outcome: 'released' });
    for (const k of ['GITHUB_RUN_ID', 'GITHUB_RUN_ATTEMPT', 'GITHUB_REPOSITORY', 'GITHUB_WORKFLOW_REF']) delete process.env[k];

    // An agent over MCP stages a submission; the trusted step publishes it.
    const snapshotFile = join(dir, 'snapshot.json');
    expect((await cli(bench, 'snapshot', '--role', 'producer', '--out', snapshotFile)).code).toBe(0);
    const client = await memoryClient(snapshotFile, join(dir, 'intents'));
    expect((await call(client, 'work_queue_read')).ok).toBe(true);
    expect((await call(client, 'work_queue_submit', { node: { node_key: SUBMITTED.mcpNode, payload: { plan: SUBMITTED.mcpPlan } } })).ok).toBe(true);
    await client.close();
    const processed = await cli(bench, 'process-intents', '--snapshot', snapshotFile, '--intents', join(dir, 'intents'));
    expect(processed.json.counts.committed).toBe(1);

    configureDebug({});
    setDebugSink(null);
    const p = await bench.replayValid();
    const ids = new Set<string>();
    for (const w of p.works()) [w.workId, w.graphId, w.nodeKey, w.admittedCommit, ...w.claims].forEach((id) => ids.add(id));
    for (const c of p.state.commits) [c.id, c.requestId].forEach((id) => ids.add(id));
    for (const d of p.state.dispatches.values()) {
      ids.add(d.dispatchId);
      const run = (d.run as { run_id?: string } | null)?.run_id;
      if (run !== undefined) ids.add(run);
    }
    ids.add('770000123456');
    expect(ids.has(l.dispatch_id) && ids.has(claimId) && ids.has(l.run_id)).toBe(true);
    const forbidden = [...Object.values(SUBMITTED), ...[...ids].filter((id) => id.length >= 6), TOKEN, REPOSITORY, 'acme', bench.dir, dir, bench.fake.url, new URL(bench.fake.url).host, 'github.com'];

    expect(lines.length).toBeGreaterThan(50);
    const seen = new Set<string>();
    for (const line of lines) {
      const m = LINE.exec(line);
      expect(m, `not a metadata-only event line: ${line}`).not.toBeNull();
      seen.add(m![1]!);
      for (const s of forbidden) expect(line.includes(s), `${line} contains ${s}`).toBe(false);
    }
    for (const ns of TOUCHED) expect([...seen], `namespace ${ns} emitted nothing`).toContain(ns);
    // The events of the lifecycle's key steps are there: publication attempts, the grant's packing limit, the launch, binding and settlement.
    const events = lines.map((line) => line.replace(/^\S+ work-queue:/, ''));
    for (const prefix of ['store cas outcome=committed', 'store attempt', 'scheduler pack', 'dispatch grant outcome=committed claims=1', 'dispatch transition state=started status=committed',
      'native post outcome=accepted status=200', 'native launch outcome=bound', 'native binding bound_now=false', 'claims finish completed=true status=committed',
      'effects verify verified=true', 'delivery settle outcome=result verified=true', 'reconciler group outcome=released', 'dispatch transition state=released status=committed',
      'store http method=GET status=200', 'memory hit', 'replay cold', 'intents intent kind=submit status=committed', 'mcp tool tool=work_queue_submit ok=true']) {
      expect(events.some((e) => e.startsWith(prefix)), prefix).toBe(true);
    }
  }, 60_000);

  it('the real entry point writes timestamped events to stderr under RUNNER_DEBUG=1 or DEBUG, honours exclusions, and is silent by default', async () => {
    bench = await createBench({ nodes: [{ node_key: SUBMITTED.seedNode, payload: { plan: SUBMITTED.seedPlan } }] });
    const ledger = join(mkdtempSync(join(bench.dir, 'ledger-')), 'work-queue.jsonl');
    writeFileSync(ledger, (await bench.store.read()).bytes!);
    const stderr = (env: Record<string, string | undefined>): string[] => {
      const clean = Object.fromEntries(Object.entries(saved).filter(([k]) => k !== 'DEBUG' && !k.endsWith('RUNNER_DEBUG')));
      const r = spawnSync(process.execPath, ['bin/fairway.js', 'verify', '--ledger', ledger, '--json'], { env: { ...clean, ...env } as NodeJS.ProcessEnv, encoding: 'utf8' });
      expect(JSON.parse(r.stdout).ok, r.stderr).toBe(true);
      return r.stderr.split('\n').filter((s) => s !== '');
    };
    expect(stderr({})).toEqual([]);
    for (const env of [{ RUNNER_DEBUG: '1' }, { ACTIONS_RUNNER_DEBUG: 'true' }, { DEBUG: 'work-queue:replay' }]) {
      const lines = stderr(env);
      expect(lines.length, JSON.stringify(env)).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatch(LINE);
      expect(lines.some((line) => / work-queue:replay cold bytes=\d+ commits=1 ms=\d+$/.test(line))).toBe(true);
      for (const line of lines) expect(line.includes(ledger) || line.includes(SUBMITTED.seedPlan)).toBe(false);
    }
    expect(stderr({ DEBUG: 'work-queue:*,-work-queue:replay' }).filter((line) => line.includes('work-queue:replay'))).toEqual([]);
    expect(stderr({ DEBUG: 'work-queue:store' })).toEqual([]);
  }, 60_000);
});

