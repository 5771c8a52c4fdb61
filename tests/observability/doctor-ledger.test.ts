/**
 * `fairway doctor` on a real Git repository whose queue branch holds a ledger that fails replay:
 * the `ledger` problem names where replay refused it (the line, as `fairway verify` does), in
 * its message and its details, so the operator can find the record.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dirCli, fixtureRepo, git, queueLedger } from '../support/fixture-repo.ts';

describe('fairway doctor: an invalid ledger', () => {
  it('names the failing line in the ledger problem, like verify', async () => {
    const repo = fixtureRepo('fairway-doctor-ledger-');
    writeFileSync(join(repo, 'task.json'), '{"x":1}');
    expect((await dirCli(repo, '--json', 'submit-work', '--file', join(repo, 'task.json'))).code).toBe(0);
    const { text } = queueLedger(repo);
    // A second commit on the queue branch appends a record replay refuses (line 2).
    git(repo, 'checkout', '-q', 'work-queue');
    appendFileSync(join(repo, 'work-queue.jsonl'), '{"garbage":1}\n');
    git(repo, 'commit', '-qam', 'not a QueueCommit');
    git(repo, 'checkout', '-q', 'main');
    expect(text!.split('\n').filter((l) => l !== '')).toHaveLength(1);

    const verify = await dirCli(repo, 'verify');
    expect(verify.code).toBe(3);
    expect(verify.err).toContain('line 2');
    const doctor = await dirCli(repo, '--json', 'doctor');
    expect(doctor.code).toBe(3);
    const ledger = doctor.json.error.details.report.checks.find((c: { name: string }) => c.name === 'ledger');
    expect(ledger).toMatchObject({ status: 'problem', details: { code: 'unsupported_protocol', line: 2 } });
    expect(ledger.message).toContain('line 2');
  });

  it('on a branch without the ledger file says so (an empty queue, or a mistyped --branch) instead of only "branch at"', async () => {
    const repo = fixtureRepo('fairway-doctor-noledger-');
    const doctor = await dirCli(repo, '--branch', 'main', '--json', 'doctor');
    expect(doctor.code).toBe(0);
    expect(doctor.json.checks.map((c: { name: string }) => c.name)).toEqual(['ref_lock', 'store_read', 'ledger']);
    expect(doctor.json.checks[2]).toMatchObject({ status: 'ok', details: { commits: 0, bytes: null } });
    expect(doctor.json.checks[2].message).toContain('no work-queue.jsonl on the branch');
  });
});
