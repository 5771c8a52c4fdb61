/**
 * A refused write names no commit or ledger line that does not exist (engine/errors.ts
 * `refusedCandidate`): the publisher validates the candidate commit on a fork before its
 * compare-and-swap, and a refusal is about that candidate, which was never written. The CLI
 * says where in the refused request (`operation 0 of the refused request`), the JSON error
 * carries no `commit`/`line` and marks `details.refused_candidate`, and the branch is
 * unchanged. Errors of the existing ledger keep their commit and line, and
 * request_id_conflict names its (real) commit once. Real temporary Git repositories, through
 * the real CLI entry point.
 */
import { execFileSync } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import { dirCli, fixtureRepo, git, inputFiles, queueLedger, queueTip } from '../support/fixture-repo.ts';

let repo: string;
let file: (name: string, value: unknown) => string;

beforeEach(() => {
  repo = fixtureRepo('fairway-refused-');
  file = inputFiles('fairway-refused-files-');
});

const fairway = (...args: string[]) => dirCli(repo, ...args);

const ledger = () => queueLedger(repo);

async function bootstrap(): Promise<void> {
  expect((await fairway('--json', '--request-id', 'seed', 'submit-work', '--file', file('seed.json', { a: 1 }), '--node-key', 'seed')).code).toBe(0);
}

/** Both forms of one refused run: the JSON error (no commit, no line) and the human line (no commit id, no ledger line). */
async function refused(code: string, args: string[], where: string): Promise<any> {
  const before = ledger();
  const j = await fairway('--json', ...args);
  expect(j.code, j.out).toBe(3);
  expect(j.json.ok).toBe(false);
  expect(j.json.error.code).toBe(code);
  expect(j.json.error).not.toHaveProperty('commit');
  expect(j.json.error).not.toHaveProperty('line');
  expect(j.json.error.details.refused_candidate).toBe(true);
  const h = await fairway(...args);
  expect(h.code).toBe(3);
  expect(h.err).toContain(`fairway: ${code}: `);
  expect(h.err.trimEnd().endsWith(where), h.err).toBe(true);
  expect(h.err).not.toMatch(/\bq_[0-9a-f]{8}|\bline \d/);
  expect(ledger()).toEqual(before);
  return j.json.error;
}

describe('a refused write names no commit or ledger line that does not exist', () => {
  it('refused candidate: an unregistered --fairness-key cites operation 0 of the refused request, not a commit or line', async () => {
    await bootstrap();
    const error = await refused('unknown_fairness_key', ['submit-work', '--file', file('p.json', { b: 2 }), '--fairness-key', 'platform'],
      '(operation 0 of the refused request, at operations.0.fairness_key)');
    expect(error).toMatchObject({ operation: 0, path: 'operations.0.fairness_key' });
  });

  it('refused candidate: the genesis of a queue that is never created names no commit or line either', async () => {
    await refused('unknown_fairness_key', ['submit-work', '--file', file('p.json', { b: 2 }), '--fairness-key', 'platform'],
      '(operation 1 of the refused request, at operations.1.fairness_key)');
    expect(queueTip(repo)).toBeNull();
  });

  it('refused candidate: a payload over payload_bytes keeps its limit details and cites operation 0 of the refused request', async () => {
    await bootstrap();
    const error = await refused('resource_limit', ['submit-work', '--file', file('big.json', { p: 'x'.repeat(20_000) })],
      '(operation 0 of the refused request)');
    expect(error.details).toMatchObject({ refused_candidate: true });
    expect(Object.keys(error.details).length).toBeGreaterThan(1); // the limit's own details stay
  });

  it('refused candidate: policy_not_quiescent cites operation 0 of the refused request', async () => {
    await bootstrap();
    await refused('policy_not_quiescent', ['policy', '--from-config', '--epoch', 'epoch-2'], '(operation 0 of the refused request)');
  });

  it('request_id_conflict names the committed commit once, and that commit is in the ledger', async () => {
    await bootstrap();
    const before = ledger();
    const args = ['--request-id', 'seed', 'submit-work', '--file', file('other.json', { a: 2 }), '--node-key', 'seed'];
    const j = await fairway('--json', ...args);
    expect(j.code).toBe(3);
    expect(j.json.error.code).toBe('request_id_conflict');
    const commit = j.json.error.commit as string;
    expect(before.text).toContain(`"id":"${commit}"`);
    expect(j.json.error.details?.refused_candidate).toBeUndefined();
    const h = await fairway(...args);
    expect(h.code).toBe(3);
    expect(h.err.split(commit).length - 1, h.err).toBe(1);
    expect(h.err).toMatch(new RegExp(`^fairway: request_id_conflict: request id seed was already committed with a different meaning \\(commit ${commit}\\)\\n$`));
    expect(ledger()).toEqual(before);
  });

  it('an error of the existing ledger keeps its commit and line (replay and a write on it)', async () => {
    await bootstrap();
    expect((await fairway('--json', 'submit-work', '--file', file('q.json', { c: 3 }), '--node-key', 'second')).code).toBe(0);
    const lines = ledger().text!.split('\n');
    const second = JSON.parse(lines[1]!) as { id: string };
    lines[1] = lines[1]!.replace('"priority":3', '"priority":4');
    // A direct Git write outside the protocol: line 2 no longer matches its request.
    const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: `${lines.join('\n')}\n`, encoding: 'utf8' }).trim();
    const tree = execFileSync('git', ['-C', repo, 'mktree'], { input: `100644 blob ${blob}\twork-queue.jsonl\n`, encoding: 'utf8' }).trim();
    git(repo, 'update-ref', 'refs/heads/work-queue', git(repo, 'commit-tree', tree, '-p', queueTip(repo)!, '-m', 'tamper'));
    const before = ledger();
    for (const args of [['replay'], ['submit-work', '--file', file('r.json', { d: 4 })]]) {
      const j = await fairway('--json', ...args);
      expect(j.code).toBe(3);
      expect(j.json.error).toMatchObject({ commit: second.id, line: 2 });
      expect(j.json.error.details?.refused_candidate).toBeUndefined();
      const h = await fairway(...args);
      expect(h.err).toContain(`(commit ${second.id}, line 2`);
    }
    expect(ledger()).toEqual(before);
  });
});
