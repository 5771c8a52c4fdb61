/**
 * `reconcile --receipts DIR` names a directory the command reads `<claim_id>.json` from. A DIR
 * that is not there (or is a file) used to read as a directory without receipts: the pass ran,
 * and every delivery barrier was quietly left pending. It is now refused before anything is
 * read or written, with the `_not_found` / `_unreadable` codes `--ledger`, `--settings` and
 * `--workload` use for their paths (exit 3). The real CLI entry point on a real local Git queue:
 * a reserved group that `--cancel-reserved` would release shows that nothing was written.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { dirCli, fixtureRepo, inputFiles, queueLedger } from '../support/fixture-repo.ts';

let repo: string;
let dispatchId: string;
const fairway = (...args: string[]) => dirCli(repo, ...args);

beforeEach(async () => {
  repo = fixtureRepo('fairway-receipts-dir-');
  const file = inputFiles('fairway-receipts-dir-files-');
  expect((await fairway('--json', 'submit-work', '--file', file('t.json', { task: 't' }), '--node-key', 'a')).code).toBe(0);
  const grant = await fairway('--json', 'dispatch-next');
  expect(grant.code, grant.out).toBe(0);
  dispatchId = grant.json.claims[0].dispatch_id;
});

const scratch = () => mkdtempSync(join(tmpdir(), 'fairway-receipts-dir-x-'));

describe('reconcile --receipts DIR', () => {
  it('receipts_not_found / receipts_unreadable: a missing DIR, a file or a path through a file is refused before anything is read or written (exit 3)', async () => {
    const dir = scratch();
    const plain = join(dir, 'receipts.json');
    writeFileSync(plain, '{}');
    const before = queueLedger(repo);
    const cases: Array<[string, string, RegExp]> = [
      [join(dir, 'missing'), 'receipts_not_found', /^cannot read --receipts directory .*missing: ENOENT$/],
      [plain, 'receipts_unreadable', /^--receipts .*receipts\.json is not a directory$/],
      [join(plain, 'sub'), 'receipts_unreadable', /^cannot read --receipts directory .*receipts\.json\/sub: ENOTDIR$/],
    ];
    for (const [path, code, message] of cases) {
      const j = await fairway('--json', 'reconcile', '--dispatch-id', dispatchId, '--cancel-reserved', '--receipts', path);
      expect([j.code, j.json.ok, j.json.error?.code], j.out).toEqual([3, false, code]);
      expect(j.json.error.message).toMatch(message);
      const h = await fairway('reconcile', '--all', '--cancel-reserved', '--receipts', path);
      expect(h.code).toBe(3);
      expect(h.err).toMatch(new RegExp(`^fairway: ${code}: `));
      expect(h.out).toBe('');
      // Nothing written: the reserved group --cancel-reserved would release is still held.
      expect(queueLedger(repo)).toEqual(before);
    }
    const held = await fairway('--json', 'evidence', '--dispatch-id', dispatchId);
    expect(held.json.groups[0].release_commit).toBeNull();
  });

  it('an existing directory, even an empty one, is read as before: the reserved group is released', async () => {
    const r = await fairway('--json', 'reconcile', '--dispatch-id', dispatchId, '--cancel-reserved', '--receipts', scratch());
    expect(r.code, r.out).toBe(0);
    expect(r.json.reconciled[0]).toMatchObject({ dispatch_id: dispatchId });
    expect((await fairway('--json', 'evidence', '--dispatch-id', dispatchId)).json.groups[0].release_commit).toMatch(/^q_/);
  });
});
