/**
 * The human (table) output of the read commands `stats`, `state` and `inspect` through the CLI
 * entry point: it must say what `--json` says, and never mislead about what the queue accepts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFairway } from '../support/cli.ts';

async function fairway(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runFairway(args, { out: (s) => void (out += s.endsWith('\n') ? s : `${s}\n`), err: (s) => void (err += s) });
  return { code, out, err };
}

describe('stats text', () => {
  it('does not report 0 bytes left for new admission when the owed reserve exceeds the reserve (admission is still open)', async () => {
    // The demo queue owes more lifecycle bytes than its recovery reserve, which Fairway allows
    // (docs/operating-envelope.md "What is not enforced"): admission is bounded by watermark + reserve.
    const ledger = join(mkdtempSync(join(tmpdir(), 'fairway-stats-text-')), 'demo.jsonl');
    expect((await fairway('demo', '--out', ledger)).code).toBe(0);
    const e = JSON.parse((await fairway('--ledger', ledger, '--json', 'stats')).out).envelope;
    expect(e.reserve).toBeGreaterThan(e.recovery_bytes);
    expect(e.closure_remaining).toBeGreaterThan(0);
    const text = await fairway('--ledger', ledger, 'stats');
    expect(text.code).toBe(0);
    expect(text.out).not.toMatch(/0 left for new admission/);
    expect(text.out).toContain(`worst-case lifecycle bytes owed ${e.reserve}, ${e.closure_remaining} bytes left under the watermark + ${e.recovery_bytes}-byte reserve bound`);
  });
});
