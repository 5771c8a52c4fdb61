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

/** `fairway verify --ledger LEDGER ARGS` under FAIRWAY_REPLAY_THREADS=`env`, with replay's debug events. */
function verify(ledger: string, env: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['bin/fairway.js', 'verify', '--ledger', ledger, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FAIRWAY_REPLAY_THREADS: env, DEBUG: 'work-queue:replay' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Verified {
  ok: boolean;
  commits: number;
  replay_threads?: { requested: number; used: boolean; threads?: number; records?: number; checked_ahead?: number; rechecked?: number; reason?: string };
}
const parsed = (stdout: string): Verified => JSON.parse(stdout) as Verified;
/** The verdict without the report of the threads. */
const verdict = (stdout: string): Verified => {
  const { replay_threads: _threads, ...rest } = parsed(stdout);
  return rest;
};

/**
 * Runs verify with one worker until a run's worker has checked records ahead (it loads while
 * replay runs: on a busy machine it may start too late to take one; a few tries), checking every
 * run with `check`; answers the records checked ahead of the last run.
 */
function untilAhead(run: () => { status: number | null; stdout: string; stderr: string }, check: (r: { status: number | null; stdout: string; stderr: string }) => number): number {
  let ahead = 0;
  for (let n = 0; n < 5 && ahead === 0; n++) ahead = check(run());
  return ahead;
}

describe('fairway verify with a replay worker thread', () => {
  it('FAIRWAY_REPLAY_THREADS=1 starts the built worker, which checks records ahead; the verdict is the one verify gives without it', () => {
    const alone = verify(good, '0', '--json');
    expect(alone.status).toBe(0);
    expect(parsed(alone.stdout)).toEqual({ ok: true, tip: expect.any(String), commits: lines.length, policy_epoch: expect.any(String), bytes: Buffer.byteLength(text) });
    expect(alone.stderr).toMatch(/work-queue:replay cold /);
    expect(alone.stderr).not.toMatch(/threads=/);
    const ahead = untilAhead(() => verify(good, '1', '--json'), (threaded) => {
      expect(threaded.status).toBe(0);
      expect(verdict(threaded.stdout)).toEqual(parsed(alone.stdout));
      const report = parsed(threaded.stdout).replay_threads!;
      expect(report).toEqual({ requested: 1, used: true, threads: 1, records: lines.length, checked_ahead: expect.any(Number), rechecked: 0 });
      const logged = /work-queue:replay cold .*threads=1 checked_ahead=(\d+)/.exec(threaded.stderr);
      expect(Number(logged?.[1])).toBe(report.checked_ahead);
      return report.checked_ahead!;
    });
    expect(ahead).toBeGreaterThan(0);
  });

  it('names the same error on a spoiled ledger, with --threads and with FAIRWAY_REPLAY_THREADS', () => {
    const alone = verify(spoiled, '0', '--json');
    expect(alone.status).toBe(3);
    expect(parsed(alone.stdout)).toMatchObject({ ok: false, error: { line: lines.length - 2 } });
    for (const threaded of [verify(spoiled, '1', '--json'), verify(spoiled, '', '--threads', '1', '--json')]) {
      expect(threaded.status).toBe(3);
      expect(threaded.stdout).toBe(alone.stdout);
    }
  });

  it('verify --threads N asks for N workers for one run (over FAIRWAY_REPLAY_THREADS) and reports them; a bad count, flag or variable, is a usage error', () => {
    const ahead = untilAhead(() => verify(good, '', '--threads', '1'), (text) => {
      const m = new RegExp(`^ledger valid: ${lines.length} commits, .*\\); (\\d+) of ${lines.length} records checked ahead on 1 worker thread\n$`).exec(text.stdout);
      expect(m).not.toBeNull();
      return Number(m![1]);
    });
    expect(ahead).toBeGreaterThan(0);
    // Below 4 MiB no worker starts, and verify says so.
    const small = join(dir, 'small.jsonl');
    writeFileSync(small, `${lines.slice(0, 40).join('\n')}\n`);
    expect(parsed(verify(small, '', '--threads', '2', '--json').stdout).replay_threads).toEqual({ requested: 2, used: false, reason: 'ledger_too_small' });
    expect(verify(small, '', '--threads', '2').stdout).toMatch(/; no worker threads: the ledger is under 4 MiB\n$/);
    // --threads 0 turns off what the variable asks for; without either, nothing is reported.
    expect(parsed(verify(good, '3', '--threads', '0', '--json').stdout)).not.toHaveProperty('replay_threads');
    expect(verify(good, '3', '--threads', '0').stderr).not.toMatch(/threads=/);
    expect(parsed(verify(good, '', '--json').stdout)).not.toHaveProperty('replay_threads');
    for (const bad of ['17', '-1', '1.5', 'two']) {
      const flag = verify(good, '', '--threads', bad, '--json');
      expect(flag.status).toBe(2);
      expect(parsed(flag.stdout)).toEqual({ ok: false, error: { code: 'option_invalid', message: `--threads must be an integer 0..16, not ${JSON.stringify(bad)}` } });
      const variable = verify(good, bad, '--json');
      expect(variable.status).toBe(2);
      expect(parsed(variable.stdout)).toEqual({ ok: false, error: { code: 'option_invalid', message: `FAIRWAY_REPLAY_THREADS must be an integer 0..16, not ${JSON.stringify(bad)}` } });
    }
  });

  it('builds the worker as plain JavaScript beside the CLI', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'dist', 'cli.json'), 'utf8')) as { dir: string; modules: Record<string, string> };
    expect(manifest.modules['lib/replay/verify-worker.ts']).toBe('verify-worker.js');
    const worker = readFileSync(join(ROOT, 'dist', manifest.dir, 'verify-worker.js'), 'utf8');
    expect(worker).not.toMatch(/(from|import\() ?['"][^'"]+\.tsx?['"]/);
  });
});
