/**
 * `fairway inspect` after compaction (spec 7.10, 7.17: the prior Git commit retains earlier
 * evidence), on a queue migrated from the reference implementation (ledger-1m) in a real local
 * Git repository, through the real entry point. A checkpoint keeps a DeliveryFailure's operation
 * but not its commit, and a foreign writer's DeliveryFailure and Release request ids are not
 * Fairway's stable ones, so only the ledger at the checkpoint's prior_git_sha names those commits
 * (and the commits that touched a Work): `inspect --work-id` and `--claim-id` read it, as
 * `evidence` and `trace` do, and from the compacted ledger file alone say where they are.
 */
import { expect, it } from 'vitest';
import { runCaptured } from '../support/cli.ts';
import { ledgerFile, migratedRepo, referenceLedger, referenceMissing } from '../support/compacted-reference.ts';
import { dirCli, git } from '../support/fixture-repo.ts';
import { describeReference } from '../support/reference.ts';

interface Facts {
  text: string;
  /** Work whose delivery barrier a DeliveryFailure settled. */
  failed: string[];
  /** A Claim of a released group. */
  released: string;
}

function facts(): Facts {
  const text = referenceLedger();
  const ops = text.split('\n').filter((l) => l !== '').flatMap((l) => (JSON.parse(l) as { operations: Array<Record<string, string>> }).operations);
  const group = ops.find((o) => o.kind === 'Release')!.dispatch_id;
  return {
    text,
    failed: ops.filter((o) => o.kind === 'DeliveryFailure').map((o) => o.work_id!),
    released: ops.find((o) => o.kind === 'Claim' && o.dispatch_id === group)!.claim_id!,
  };
}

describeReference(!referenceMissing(), 'inspect after compaction (reference-written queue, CLI on local Git)', () => {
  it('inspect --work-id keeps the DeliveryFailure commit and every commit that touched the Work, --claim-id the Release commit; a ledger file alone says where they are', async () => {
    const f = facts();
    expect(f.failed).toHaveLength(3);
    const repo = migratedRepo(f.text, 'fairway-compact-inspect-');
    const queries = [...f.failed.map((w) => ['inspect', '--work-id', w]), ['inspect', '--claim-id', f.released]];
    const answers = async (...source: string[]) => {
      const out = [];
      for (const q of queries) {
        const r = await runCaptured([...source, '--json', ...q]);
        expect(r.code, r.out).toBe(0);
        const { tip: _tip, ...rest } = r.json;
        out.push(rest);
      }
      return out;
    };
    const before = await answers('--dir', repo);
    for (const w of before.slice(0, 3)) {
      expect(w.delivery_failure).toMatch(/^q_/);
      expect(w.touched_by).toContain(w.delivery_failure);
    }
    expect(before[3].dispatch).toMatchObject({ released: true, release_commit: expect.stringMatching(/^q_/) });

    const prior = git(repo, 'rev-parse', 'refs/heads/work-queue');
    const compacted = await dirCli(repo, '--json', 'compact');
    expect(compacted.json.status, compacted.out).toBe('committed');
    expect(await answers('--dir', repo)).toEqual(before);

    const file = ledgerFile(repo);
    const offline = await answers('--ledger', file);
    const checkpoint = compacted.json.commit_id;
    for (const [i, w] of offline.slice(0, 3).entries()) {
      expect(w).toMatchObject({ delivery_failure: null, compacted: { commit: before[i].admitted_in, checkpoint, prior_git_sha: prior } });
      expect(before[i].touched_by).toEqual(expect.arrayContaining(w.touched_by));
    }
    expect(offline[3]).toMatchObject({ dispatch: { released: true, release_commit: null }, compacted: { commit: before[3].granted_in, checkpoint, prior_git_sha: prior } });
    const text = await runCaptured(['--ledger', file, 'inspect', '--work-id', f.failed[0]!]);
    expect(text.out).toContain(`(commits before checkpoint ${checkpoint} are in the ledger at Git commit ${prior}, which this source does not have)`);
  });
});
