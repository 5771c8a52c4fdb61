import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { ARTIFACTS, consoleState } from './helpers.ts';

/** The console's /metrics (issue 15 §4) scraped on the demo queue and checked against `fairway stats --json` on the same ledger. */

function fairway(args: string[]): string {
  try {
    return execFileSync(process.execPath, ['bin/fairway.js', ...args], { encoding: 'utf8' });
  } catch (e) {
    const failed = e as { stdout?: string; stderr?: string };
    throw new Error(`fairway ${args.join(' ')} failed: ${failed.stdout ?? ''} ${failed.stderr ?? ''}`.slice(0, 2000), { cause: e });
  }
}

function demoLedger(): string {
  return execFileSync('git', ['-C', consoleState().demo_repository!, 'show', 'work-queue:work-queue.jsonl'], { encoding: 'utf8' });
}

/** `name{labels} value` samples of an OpenMetrics text. */
function samples(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  return text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).map((line) => {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`not a sample: ${line}`);
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, JSON.parse(`"${l[2]!}"`) as string]));
    return { name: m[1]!, labels, value: Number(m[3]) };
  });
}

test('/metrics: OpenMetrics text of the demo queue, matching stats --json on the same ledger', async ({ request }) => {
  // Scrape between two reads of the branch, so both sides describe the same ledger.
  let text = '';
  let ledger = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = demoLedger();
    const res = await request.get('/metrics');
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(res.headers()['cache-control']).toBe('no-store');
    text = await res.text();
    ledger = demoLedger();
    if (ledger === before) break;
  }
  expect(text.trimEnd().endsWith('# EOF')).toBe(true);
  const file = join(ARTIFACTS, 'metrics-ledger.jsonl');
  writeFileSync(file, ledger);
  const stats = JSON.parse(fairway(['stats', '--ledger', file, '--json']));
  const all = samples(text);
  const one = (name: string, labels: Record<string, string> = {}) => all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  const sum = (name: string, labels: Record<string, string> = {}) => one(name, labels).reduce((n, s) => n + s.value, 0);

  expect(sum('fairway_ledger_commits')).toBe(stats.commits);
  expect(sum('fairway_ledger_bytes')).toBe(stats.envelope.bytes);
  expect(sum('fairway_ledger_watermark_bytes')).toBe(stats.envelope.ledger_bytes);
  expect(sum('fairway_ledger_reserve_bytes')).toBe(stats.envelope.reserve);
  expect(sum('fairway_grants_paused')).toBe(stats.controls.grants_paused ? 1 : 0);
  for (const p of stats.pools) {
    expect(sum('fairway_work_ready', { pool: p.pool }) + sum('fairway_work_waiting', { pool: p.pool }), p.pool).toBe(p.available);
    expect(sum('fairway_work_running', { pool: p.pool })).toBe(p.claimed);
    expect(sum('fairway_logical_reservations', { pool: p.pool })).toBe(p.logical_outstanding);
    expect(sum('fairway_native_reservations', { pool: p.pool })).toBe(p.native_outstanding);
  }
  // Counters come from the ledger's own records.
  const ops = ledger.trim().split('\n').flatMap((l) => (JSON.parse(l) as { operations: Array<{ kind: string }> }).operations);
  expect(sum('fairway_grants_total')).toBe(ops.filter((o) => o.kind === 'Claim').length);
  expect(sum('fairway_grants_total')).toBeGreaterThan(0);
  expect(sum('fairway_completions_total')).toBe(ops.filter((o) => o.kind === 'Completion').length);
  // The CLI's exposition of the same ledger has the same series.
  const cli = samples(fairway(['stats', '--ledger', file, '--format', 'openmetrics']));
  for (const name of ['fairway_grants_total', 'fairway_completions_total', 'fairway_claims_open', 'fairway_ledger_bytes', 'fairway_native_reservations']) {
    expect(cli.filter((s) => s.name === name), name).toEqual(one(name));
  }
});

test('/metrics answers only for the console\'s own host name (the Host guard covers it like every page)', async () => {
  const { url } = consoleState();
  const { hostname, port } = new URL(url);
  const status = await new Promise<number>((resolve, reject) => {
    const req = httpRequest({ host: hostname, port: Number(port), path: '/metrics', headers: { host: 'rebound.example' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
  expect(status).toBe(403);
});
