/**
 * `fairway verify` as users run it (the compiled CLI) with the per-record checks on a worker
 * thread (lib/replay/thread-verifier.ts, FAIRWAY_REPLAY_THREADS): the built worker
 * (dist/…/verify-worker.js) is found and started, and the answer (output, exit code, the error
 * on a spoiled ledger) is the one replay gives without it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { MIN_BYTES } from '../../lib/replay/thread-verifier.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'fairway-threads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Over the 4 MiB below which replay does not start workers (thread-verifier.ts MIN_BYTES).
const { text } = generateLedger(MIN_BYTES + 256 * 1024, 5);
const lines = text.split('\n').slice(0, -1);
const good = join(dir, 'good.jsonl');
const spoiled = join(dir, 'spoiled.jsonl');
writeFileSync(good, text);
writeFileSync(spoiled, `${lines.map((l, i) => (i === lines.length - 3 ? l.replace(/"at":(\d+)/, '"at":-$1') : l)).join('\n')}\n`);

function verify(ledger: string, threads: number): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, FAIRWAY_REPLAY_THREADS: String(threads), DEBUG: 'work-queue:replay' };
  const r = spawnSync(process.execPath, ['bin/fairway.js', 'verify', '--ledger', ledger, '--json'], { cwd: ROOT, encoding: 'utf8', env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('fairway verify with a replay worker thread', () => {
  it('starts the built worker, which checks records ahead, and prints what verify prints without it', () => {
    const alone = verify(good, 0);
    expect(alone.status).toBe(0);
    expect(JSON.parse(alone.stdout)).toMatchObject({ ok: true, commits: lines.length });
    expect(alone.stderr).toMatch(/work-queue:replay cold /);
    expect(alone.stderr).not.toMatch(/threads=/);
    // The worker loads while replay runs: on a busy machine it may start too late to take a record (a few tries).
    let ahead = 0;
    for (let run = 0; run < 5 && ahead === 0; run++) {
      const threaded = verify(good, 1);
      expect(threaded.status).toBe(0);
      expect(JSON.parse(threaded.stdout)).toEqual(JSON.parse(alone.stdout));
      const reported = /work-queue:replay cold .*threads=1 checked_ahead=(\d+)/.exec(threaded.stderr);
      expect(reported).not.toBeNull();
      ahead = Number(reported![1]);
    }
    expect(ahead).toBeGreaterThan(0);
  });

  it('names the same error on a spoiled ledger', () => {
    const alone = verify(spoiled, 0);
    const threaded = verify(spoiled, 1);
    expect(alone.status).toBe(3);
    expect(threaded.status).toBe(alone.status);
    expect(threaded.stdout).toBe(alone.stdout);
    expect(JSON.parse(alone.stdout)).toMatchObject({ ok: false, error: { line: lines.length - 2 } });
  });

  it('verify --threads N turns the workers on for one run and reports what they checked; a bad count is a usage error', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, ['bin/fairway.js', 'verify', '--ledger', good, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FAIRWAY_REPLAY_THREADS: '' } });
    const threaded = run('--threads', '1', '--json');
    expect(threaded.status).toBe(0);
    const result = JSON.parse(threaded.stdout) as { ok: boolean; commits: number; worker_threads: { threads: number; checked_ahead: number } };
    expect(result).toMatchObject({ ok: true, commits: lines.length, worker_threads: { threads: 1, checked_ahead: expect.any(Number) } });
    expect(result.worker_threads.checked_ahead).toBeLessThanOrEqual(lines.length);
    const text = run('--threads', '1');
    expect(text.stdout).toMatch(new RegExp(`^ledger valid: ${lines.length} commits, .*; \\d+ of ${lines.length} records checked ahead on 1 worker thread\\)\n$`));
    expect(run('--threads', '0').stdout).toMatch(/; no worker threads \(--threads 0\)\)\n$/);
    expect(JSON.parse(run('--json').stdout)).not.toHaveProperty('worker_threads');
    for (const bad of ['17', '-1', '1.5', 'two']) {
      const r = run('--threads', bad, '--json');
      expect(r.status).toBe(2);
      expect(JSON.parse(r.stdout)).toEqual({ ok: false, error: { code: 'option_invalid', message: `--threads must be an integer 0..16, not ${JSON.stringify(bad)}` } });
    }
  });

  it('builds the worker as plain JavaScript beside the CLI', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'dist', 'cli.json'), 'utf8')) as { dir: string; modules: Record<string, string> };
    expect(manifest.modules['lib/replay/verify-worker.ts']).toBe('verify-worker.js');
    const worker = readFileSync(join(ROOT, 'dist', manifest.dir, 'verify-worker.js'), 'utf8');
    expect(worker).not.toMatch(/(from|import\() ?['"][^'"]+\.tsx?['"]/);
  });
});
