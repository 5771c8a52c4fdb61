/**
 * Historical explanations survive compaction (spec 7.13 historical explain, 7.10 "its prior Git
 * commit SHA ... retain a pointer to earlier evidence", 7.17 "Earlier history remains accessible
 * through the referenced Git commit"): `explain --request-id/--claim-id/--before-claim` for a
 * grant older than the checkpoint reads the pre-compaction ledger from the checkpoint's
 * prior_git_sha and reproduces the explanation exactly, through one and two checkpoints. Without
 * Git history (`--ledger FILE`) it says `history_compacted` and names that commit. The console
 * receipt view behaves the same.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { receiptView } from '../../lib/console/views/receipt.ts';
import { ledgerHolding } from '../../lib/publisher/history.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { fixtureRepo, git } from '../support/fixture-repo.ts';
import { DOTCOM_HOST } from '../../lib/github/host.ts';

async function cli(...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await main(['--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

let repo: string;
let files: string;

beforeEach(() => {
  repo = fixtureRepo('fairway-compact-explain-');
  files = mkdtempSync(join(tmpdir(), 'fairway-compact-explain-files-'));
});

async function setUp(): Promise<{ claims: string[]; queries: string[][] }> {
  const graph = ['a', 'b', 'c', 'd'].map((k, i) => ({ node_key: k, payload: { task: k }, priority: 1 + (i % 3) }));
  writeFileSync(join(files, 'g.json'), JSON.stringify(graph));
  expect((await cli('--repo', repo, '--request-id', 'graph-1', 'submit-graph', '--graph-id', 'g', '--file', join(files, 'g.json'))).code).toBe(0);
  const grant = await cli('--repo', repo, '--request-id', 'grant-1', 'dispatch-next', '--max-claims', '3', '--max-dispatches', '3');
  expect(grant.code, JSON.stringify(grant.json)).toBe(0);
  const claims = (grant.json.claims as Array<{ claim_id: string }>).map((c) => c.claim_id);
  const queries = [['--request-id', 'grant-1'], ['--claim-id', claims[1]!], ['--before-claim', claims[2]!]].map((q) => q[0] === '--request-id' ? [...q, 'explain'] : ['explain', ...q]);
  return { claims, queries };
}

describe('historical explain after compaction', () => {
  it('explain --request-id/--claim-id/--before-claim of a grant older than the checkpoint reproduces the explanation from prior_git_sha, through two checkpoints', async () => {
    const { queries } = await setUp();
    const before = [];
    for (const q of queries) {
      const r = await cli('--repo', repo, ...q);
      expect(r.code, JSON.stringify(r.json)).toBe(0);
      before.push(r.json);
    }
    expect(before[0].claims).toHaveLength(3);
    expect((await cli('--repo', repo, 'compact')).json.status).toBe('committed');
    for (const [i, q] of queries.entries()) expect((await cli('--repo', repo, ...q)).json).toEqual(before[i]);

    expect((await cli('--repo', repo, '--request-id', 'grant-2', 'dispatch-next')).code).toBe(0);
    expect((await cli('--repo', repo, 'compact')).json.status).toBe('committed');
    for (const [i, q] of queries.entries()) {
      const r = await cli('--repo', repo, ...q);
      expect(r.code).toBe(0);
      expect(r.json).toEqual(before[i]);
    }
  });

  it('--before-claim C is the one decision that selected C (the grant\'s decision at C\'s index), not --claim-id\'s whole grant; the table prints Claim ids that paste back', async () => {
    const { claims } = await setUp();
    const whole = (await cli('--repo', repo, 'explain', '--claim-id', claims[2]!)).json;
    const before = (await cli('--repo', repo, 'explain', '--before-claim', claims[2]!)).json;
    expect(before).not.toEqual(whole);
    const decision = whole.claims.find((c: { claim_id: string }) => c.claim_id === claims[2]);
    expect(before).toEqual({ ok: true, request_id: 'grant-1', commit_id: whole.commit_id, as_of: whole.as_of, before_claim: claims[2], index: decision.index, work_id: decision.work_id, explanation: decision.explanation });
    let table = '';
    await main(['--repo', repo, '--request-id', 'grant-1', 'explain'], { out: (t) => (table += t), err: () => undefined });
    for (const id of claims) expect(table).toContain(id);
    let one = '';
    await main(['--repo', repo, 'explain', '--before-claim', claims[2]!], { out: (t) => (one += t), err: () => undefined });
    expect(one).toContain(`the state just before Claim ${claims[2]}`);
  });

  it('without Git history (--ledger FILE) a compacted grant is history_compacted and names the prior Git commit', async () => {
    const { queries } = await setUp();
    const prior = git(repo, 'rev-parse', 'refs/heads/work-queue');
    expect((await cli('--repo', repo, 'compact')).json.status).toBe('committed');
    const file = join(files, 'compacted.jsonl');
    writeFileSync(file, git(repo, 'show', 'refs/heads/work-queue:work-queue.jsonl') + '\n');
    for (const q of queries) {
      const r = await cli('--ledger', file, ...q);
      expect(r.code, JSON.stringify(r.json)).toBe(3);
      expect(r.json.error.code).toBe('history_compacted');
      expect(r.json.error.message).toContain(prior);
    }
    // A grant made after the checkpoint is still explained from the retained ledger.
    expect((await cli('--repo', repo, '--request-id', 'grant-2', 'dispatch-next')).code).toBe(0);
    writeFileSync(file, git(repo, 'show', 'refs/heads/work-queue:work-queue.jsonl') + '\n');
    const fresh = await cli('--ledger', file, '--request-id', 'grant-2', 'explain');
    expect(fresh.code).toBe(0);
    expect(fresh.json.request_id).toBe('grant-2');
  });

  it('the console receipt of a compacted grant is the pre-compaction receipt when prior_git_sha is readable, and says history_compacted with that commit when it is not', async () => {
    await setUp();
    const store = new LocalGitStore({ repo });
    const prior = (await store.read()).version!;
    const original = receiptView(replayLedger((await store.read()).bytes!), 'grant-1', DOTCOM_HOST)!;
    expect(original.explanations).toHaveLength(3);
    expect((await cli('--repo', repo, 'compact')).json.status).toBe('committed');
    const compacted = replayLedger((await store.read()).bytes!);
    const history = await ledgerHolding(store, compacted, original.commitId);
    expect(history).not.toBeNull();
    const { dispatch: _d, ...restored } = receiptView(compacted, 'grant-1', DOTCOM_HOST, history)!;
    const { dispatch: _o, ...expected } = original;
    expect(restored).toEqual(expected);
    expect(receiptView(compacted, 'grant-1', DOTCOM_HOST, history)!.dispatch).toEqual({ ...original.dispatch, observed_tip: compacted.tip });

    const bare = receiptView(compacted, 'grant-1', DOTCOM_HOST)!;
    expect(bare.compacted).toEqual({ code: 'history_compacted', checkpoint: compacted.tip, priorGitSha: prior });
    expect(bare).toMatchObject({ requestId: 'grant-1', commitId: original.commitId, sourceCommit: original.sourceCommit, at: original.at, policyEpoch: original.policyEpoch, explanations: [] });
    expect(bare.dispatch).toMatchObject({ claims: original.dispatch!.claims, limiting_reason: 'history_compacted' });
    expect(receiptView(compacted, 'graph-1', DOTCOM_HOST)).toMatchObject({ kind: 'submit', compacted: { code: 'history_compacted' } });
  });
});
