import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFairway } from './support/cli.ts';
import { buildSmallQueue } from './support/small-queue.ts';

function capture(): { io: { out: (s: string) => void; err: (s: string) => void }; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { io: { out: (s) => (out += s.endsWith('\n') ? s : `${s}\n`), err: (s) => (err += s) }, out: () => out, err: () => err };
}

const dir = mkdtempSync(join(tmpdir(), 'fairway-cli-'));
const demo = buildSmallQueue();
const ledger = join(dir, 'demo.jsonl');
writeFileSync(ledger, demo.ledger);

describe('fairway CLI', () => {
  it('verify --json prints exactly one success object with tip, commits, policy epoch and the bytes checked', async () => {
    const c = capture();
    expect(await runFairway(['verify', '--ledger', ledger, '--json'], c.io)).toBe(0);
    const out = JSON.parse(c.out());
    expect(out).toEqual({ ok: true, tip: demo.writer.state.tip, commits: demo.writer.state.commits.length, policy_epoch: 'demo-epoch-1', bytes: Buffer.byteLength(demo.ledger) });
  });

  it('replay --json prints the projection with its summary', async () => {
    const c = capture();
    expect(await runFairway(['replay', '--ledger', ledger, '--json'], c.io)).toBe(0);
    const out = JSON.parse(c.out());
    expect(out.ok).toBe(true);
    expect(out.summary.works.total).toBe(demo.writer.state.works.size);
    expect(out.summary.claims.completed).toBe(demo.grants.length);
    expect(out.controls.grants_paused).toBe(false);
  });

  it('a ledger that fails validation gives a stable code, its line, and exit 3', async () => {
    const lines = demo.ledger.split('\n');
    lines[2] = lines[2]!.replace('"priority":3', '"priority":3.5');
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, lines.join('\n'));
    const c = capture();
    expect(await runFairway(['verify', '--ledger', bad, '--json'], c.io)).toBe(3);
    const out = JSON.parse(c.out());
    expect(out.ok).toBe(false);
    expect(out.error.code).toBe('noncanonical_number');
    expect(out.error.line).toBe(3);
  });

  it('a missing file is a protocol error with code ledger_not_found', async () => {
    const c = capture();
    expect(await runFairway(['verify', '--ledger', join(dir, 'nope.jsonl'), '--json'], c.io)).toBe(3);
    expect(JSON.parse(c.out()).error.code).toBe('ledger_not_found');
  });

  it('usage errors exit 2, with a JSON error under --json', async () => {
    const c = capture();
    expect(await runFairway(['verify', '--ledger', ledger, '--threads', '99', '--json'], c.io)).toBe(2);
    expect(JSON.parse(c.out()).error.code).toBe('option_invalid');
    const d = capture();
    expect(await runFairway(['frobnicate', '--json'], d.io)).toBe(2);
    expect(JSON.parse(d.out()).error.code).toBe('usage_error');
  });

  it('human output is a few plain lines', async () => {
    const c = capture();
    expect(await runFairway(['verify', '--ledger', ledger], c.io)).toBe(0);
    expect(c.out()).toMatch(/^ledger valid: \d+ commits, tip q_[0-9a-f]{64}, policy epoch demo-epoch-1/);
  });

  it('the bin runs from a fresh install with no build step (npx fairway --help)', () => {
    const help = execFileSync(process.execPath, [join(import.meta.dirname, '..', 'bin', 'fairway.js'), '--help'], { encoding: 'utf8' });
    expect(help).toContain('Usage: fairway');
    expect(help).toContain('verify');
    const r = spawnSync(process.execPath, [join(import.meta.dirname, '..', 'bin', 'fairway.js'), 'verify', '--ledger', ledger, '--json'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).ok).toBe(true);
  });
});

describe('internal faults are never protocol verdicts', () => {
  it('a non-protocol exception is internal_error with exit 70 (not 3) and a message saying it is a bug', async () => {
    const { reportFailure, EXIT_INTERNAL, EXIT_PROTOCOL } = await import('../cli/output.ts');
    const c = capture();
    const code = reportFailure(c.io, new TypeError("Cannot read properties of undefined (reading 'x')"), true);
    expect(code).toBe(EXIT_INTERNAL);
    expect(EXIT_INTERNAL).toBe(70);
    expect(code).not.toBe(EXIT_PROTOCOL);
    const error = JSON.parse(c.out()).error;
    expect(error.code).toBe('internal_error');
    expect(error.message).toMatch(/TypeError: Cannot read properties.*bug in Fairway.*please report it/);
    const t = capture();
    expect(reportFailure(t.io, new RangeError('boom'), false)).toBe(70);
    expect(t.err()).toMatch(/^fairway: internal error: RangeError: boom \(this is a bug in Fairway/);
  });

  it('the help epilogue documents exit code 70', async () => {
    const c = capture();
    expect(await runFairway(['--help'], c.io)).toBe(0);
    expect(c.out()).toMatch(/70 internal error \(a bug in Fairway: please report it\)/);
  });
});
