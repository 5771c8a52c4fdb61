/**
 * Duplicate commit lines in a ledger file read by the real CLI entry point
 * (`fairway replay --ledger FILE`, `fairway verify --ledger FILE`): exact
 * duplicates are idempotent, a conflicting duplicate is exit 3 with
 * `conflicting_duplicate_commit` (spec 7.6).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseLedger, duplicateVariants } from '../support/duplicates.ts';
import { runFairway } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'fairway-dup-'));
let files = 0;

async function replayFile(text: string): Promise<{ code: number; json: Record<string, unknown> }> {
  const file = join(dir, `ledger-${++files}.jsonl`);
  writeFileSync(file, text);
  let out = '';
  const code = await runFairway(['replay', '--ledger', file, '--json'], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) as Record<string, unknown> };
}

describe('duplicate commit lines in a --ledger file (CLI)', () => {
  const ledger = baseLedger();
  for (const v of duplicateVariants(ledger)) {
    it(`fairway replay --ledger: ${v.name} → ${v.expect === 'same' ? 'same summary' : `exit 3 ${v.expect}`}`, async () => {
      const base = await replayFile(ledger);
      expect(base.code).toBe(0);
      const got = await replayFile(v.text);
      if (v.expect === 'same') {
        expect(got.code).toBe(0);
        expect(got.json).toEqual(base.json);
      } else {
        expect(got.code).toBe(3);
        expect((got.json.error as { code: string }).code).toBe(v.expect);
      }
    });
  }
});
