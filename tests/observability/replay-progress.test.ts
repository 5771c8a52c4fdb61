/**
 * Replay progress of long operations (cli/progress.ts) through the real entry point, with stderr a
 * terminal: the progress line is drawn on stderr, cleared before anything else is printed (an
 * error of the ledger or a debug event included: the line is redrawn with `\r`, so text printed
 * after it would share its line), and never reaches stdout.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { configureDebug } from '../../lib/debug/log.ts';
import { runFairway } from '../support/cli.ts';

/** The lines a terminal shows for `text`: `\r` returns to the line's start, `ESC[K` erases to its end. */
function screen(text: string): string[] {
  return text.split('\n').map((line) => {
    let shown = '';
    let col = 0;
    for (let i = 0; i < line.length; i++) {
      if (line[i] === '\r') col = 0;
      else if (line.startsWith('\x1b[K', i)) {
        shown = shown.slice(0, col);
        i += 2;
      } else {
        shown = shown.slice(0, col) + line[i]! + shown.slice(col + 1);
        col += 1;
      }
    }
    return shown;
  }).filter((l) => l !== '');
}

let dir: string;
let valid: string;
let invalid: string;
let commits: number;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fairway-progress-'));
  const ledger = generateLedger(2_600_000, 3);
  commits = ledger.commits;
  valid = join(dir, 'valid.jsonl');
  invalid = join(dir, 'invalid.jsonl');
  writeFileSync(valid, ledger.text);
  writeFileSync(invalid, `${ledger.text}{"version":3}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One in-process run with stderr a terminal: what the terminal shows (stderr and stdout in order) and stdout alone. */
async function onTerminal(argv: string[]): Promise<{ code: number; shown: string[]; out: string; drawn: number }> {
  let terminal = '';
  let out = '';
  let drawn = 0;
  const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
  Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
  const write = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    const text = String(s);
    if (text.includes('replaying the ledger')) drawn += 1;
    terminal += text;
    return true;
  });
  try {
    const code = await runFairway(argv, { out: (s) => void ((terminal += `${s}\n`), (out += `${s}\n`)), err: (s) => void (terminal += `${s}\n`) });
    await new Promise((r) => setImmediate(r));
    return { code, shown: screen(terminal), out, drawn };
  } finally {
    write.mockRestore();
    if (tty === undefined) delete (process.stderr as { isTTY?: boolean }).isTTY;
    else Object.defineProperty(process.stderr, 'isTTY', tty);
  }
}

afterEach(() => vi.restoreAllMocks());

describe('replay progress on a terminal', () => {
  it('a long replay draws progress and clears it: the terminal shows only the result, stdout never the progress', async () => {
    expect(commits).toBeGreaterThan(1000);
    for (const command of ['verify', 'stats']) {
      const run = await onTerminal(['--ledger', valid, command]);
      expect(run.code, command).toBe(0);
      expect(run.drawn, command).toBeGreaterThan(0);
      expect(run.out).not.toContain('replaying');
      expect(run.shown.join('\n'), command).not.toContain('replaying the ledger');
    }
  }, 60_000);

  it('an invalid ledger: the error is printed on its own line, not after the progress line it interrupted', async () => {
    for (const command of ['verify', 'stats']) {
      const run = await onTerminal(['--ledger', invalid, command]);
      expect(run.code, command).toBe(3);
      expect(run.drawn, command).toBeGreaterThan(0);
      const error = run.shown.find((l) => l.includes('schema_invalid'));
      expect(error, run.shown.join('\n')).toMatch(/^fairway: schema_invalid: /);
    }
  }, 60_000);

  it('with DEBUG, each debug event starts its own line with its timestamp, not after the progress line', async () => {
    configureDebug({ DEBUG: 'work-queue:replay' });
    try {
      for (const command of ['verify', 'stats']) {
        const run = await onTerminal(['--ledger', valid, command]);
        expect(run.code, command).toBe(0);
        expect(run.drawn, command).toBeGreaterThan(0);
        const events = run.shown.filter((l) => l.includes('work-queue:'));
        expect(events.length, command).toBeGreaterThan(0);
        for (const line of events) expect(line, command).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z work-queue:replay /);
      }
    } finally {
      configureDebug({});
    }
  }, 60_000);

  it('under --json nothing is drawn: stderr stays empty and stdout is the one JSON object', async () => {
    const run = await onTerminal(['--json', '--ledger', valid, 'stats']);
    expect(run.code).toBe(0);
    expect(run.drawn).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ ok: true, commits });
  }, 60_000);
});
