/**
 * `fairway tui` as a user runs it: the compiled CLI (bin/fairway.js) on a real
 * pseudo-terminal (util-linux `script`), ended the ways terminals end programs.
 * The terminal must come back as it was: main screen, cursor shown.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFairway } from '../support/cli.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin/fairway.js');
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

function demoLedger(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'fairway-tui-term-')), 'demo.jsonl');
  const r = spawnSync(process.execPath, [BIN, 'demo', '--out', file], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return file;
}

/** Runs the browser on a 120x30 pseudo-terminal until its first frame, then sends `signal` (or types Ctrl-C). */
async function endWith(signal: NodeJS.Signals | 'ctrl-c', ledger: string): Promise<{ status: number | null; out: string }> {
  const command = `stty cols 120 rows 30; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} tui --ledger ${JSON.stringify(ledger)}`;
  // -e: script exits with the child's status (128 + the signal's number when a signal ended it).
  // CI=1 as in many shells and containers: ink would then draw only the last frame, at exit.
  const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, CI: '1' } });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString('latin1')));
  const end = Date.now() + 30_000;
  while (!out.includes('q quit') || !out.includes('live, read')) {
    if (Date.now() > end) throw new Error(`no first frame:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (signal === 'ctrl-c') child.stdin.write('\x03');
  else {
    const pid = Number(spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).stdout.trim().split('\n')[0]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, signal);
  }
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  child.stdin.end();
  return { status, out };
}

// Outside CI a machine without util-linux `script` skips these; under CI=true they run (and fail without it), as tests/install/packed-cli.test.ts does.
describe.skipIf(!hasScript && process.env.CI !== 'true')('fairway tui on a pseudo-terminal', () => {
  it('draws its first frame with CI=1 set, restores the main screen when ended by SIGTERM, SIGHUP or Ctrl-C, and ends with the signal\'s status', async () => {
    const ledger = demoLedger();
    for (const [signal, status] of [['SIGTERM', 143], ['SIGHUP', 129], ['ctrl-c', 130]] as const) {
      const { status: got, out } = await endWith(signal, ledger);
      const entered = out.lastIndexOf('\x1b[?1049h');
      expect(entered, signal).toBeGreaterThanOrEqual(0);
      expect(out.indexOf('\x1b[?1049l', entered), `${signal}: left on the alternate screen`).toBeGreaterThan(entered);
      expect(out.lastIndexOf('\x1b[?25h'), `${signal}: cursor left hidden`).toBeGreaterThan(out.lastIndexOf('\x1b[?25l'));
      expect(got, signal).toBe(status);
    }
  });
});

describe('fairway tui refuses what cannot work', () => {
  it('rejects --ledger - (standard input carries the keys) with option_invalid instead of waiting forever', async () => {
    let err = '';
    const code = await runFairway(['--ledger', '-', 'tui'], { out: () => undefined, err: (s) => (err += s) });
    expect(code).toBe(2);
    expect(err).toMatch(/^fairway: option_invalid: .*\(--ledger -\)/m);
  });
});

describe.skipIf(!hasScript && process.env.CI !== 'true')('fairway tui on a pseudo-terminal that changes size', () => {
  it('resized below 45x16 while running shows the size notice and ignores keys; enlarged again, it redraws and q quits with status 0', async () => {
    const ledger = demoLedger();
    const dir = mkdtempSync(join(tmpdir(), 'fairway-tui-resize-'));
    const [small, large] = [join(dir, 'small'), join(dir, 'large')];
    // The shell resizes the pseudo-terminal (stty: the kernel signals SIGWINCH) when the test creates each file.
    const waitFor = (f: string) => `while [ ! -e ${JSON.stringify(f)} ]; do sleep 0.05; done`;
    const command = [
      'stty cols 120 rows 30',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} tui --ledger ${JSON.stringify(ledger)} </dev/tty & pid=$!`,
      waitFor(small), 'stty cols 40 rows 20',
      waitFor(large), 'stty cols 100 rows 24',
      'wait $pid',
    ].join('; ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, CI: '1' } });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('latin1')));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const seen = async (what: string, from: number) => {
      const end = Date.now() + 30_000;
      while (!out.includes(what, from)) {
        if (Date.now() > end) throw new Error(`never saw ${JSON.stringify(what)}:\n${out.slice(from)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return out.indexOf(what, from);
    };
    let ended = false;
    void closed.then(() => (ended = true));
    try {
      const first = await seen('live, read', 0);
      writeFileSync(small, '');
      const notice = await seen('terminal too small: 40x20', first);
      child.stdin.write('jc'); // ignored while too small: no review opens
      await new Promise((r) => setTimeout(r, 300));
      writeFileSync(large, '');
      const redrawn = await seen('live, read', notice);
      expect(out.slice(notice)).not.toContain('CONFIRM');
      child.stdin.write('q');
      expect(await closed).toBe(0);
      child.stdin.end();
      expect(out.indexOf('\x1b[?1049l', redrawn)).toBeGreaterThan(redrawn); // back on the main screen
    } finally {
      if (!ended) child.kill(); // the terminal closes: the browser ends on its SIGHUP
    }
  });

  it('started below 45x16 through the CLI: terminal_too_small on stderr, exit 3, the screen untouched', () => {
    const ledger = demoLedger();
    for (const size of ['cols 44 rows 30', 'cols 80 rows 15']) {
      const r = spawnSync('script', ['-qfec', `stty ${size}; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} tui --ledger ${JSON.stringify(ledger)}`, '/dev/null'], { encoding: 'latin1', timeout: 30_000 });
      expect(r.status, size).toBe(3);
      expect(r.stdout).toMatch(/fairway: terminal_too_small: tui needs a terminal of at least 45x16; this one is (44x30|80x15)/);
      expect(r.stdout).not.toContain('\x1b[?1049h');
    }
  });
});
