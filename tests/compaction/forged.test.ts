/**
 * A checkpoint is checked against the history it claims to replace (spec 7.10 "A checkpoint
 * replaces a validated prefix with deterministic state; its prior Git commit SHA and canonical
 * history digest retain a pointer to earlier evidence"). Replay alone cannot tell a resealed,
 * self-consistent forged state from the real one; the ledger at the root's prior_git_sha can.
 * Whenever a view reads that history (historical explain, receipts), a root whose history is not
 * the one it names is `checkpoint_history_mismatch`, and a root whose state is not that
 * history's replay state is `checkpoint_state_mismatch`: never an explanation read from honest
 * history beside a forged present. The real CLI on a real local Git repository; nothing is written.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { canonicalize } from '../../engine/codec/index.ts';
import { requestFingerprint } from '../../engine/identity/index.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { editCheckpoint } from '../support/checkpoints.ts';
import { fixtureRepo, git } from '../support/fixture-repo.ts';

async function cli(...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await main(['--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

const ledger = (repo: string): string => git(repo, 'show', 'refs/heads/work-queue:work-queue.jsonl');
const tip = (repo: string): string => git(repo, 'rev-parse', 'refs/heads/work-queue');

/** Commits `text` as the queue branch's ledger (a direct repository writer). */
function rewrite(repo: string, text: string): void {
  const file = join(mkdtempSync(join(tmpdir(), 'fairway-forged-')), 'work-queue.jsonl');
  writeFileSync(file, text.endsWith('\n') ? text : `${text}\n`);
  const blob = git(repo, 'hash-object', '-w', file);
  const tree = execFileSync('git', ['-C', repo, 'mktree'], { input: `100644 blob ${blob}\twork-queue.jsonl\n`, encoding: 'utf8' }).trim();
  const commit = git(repo, 'commit-tree', tree, '-p', tip(repo), '-m', 'direct write');
  git(repo, 'update-ref', 'refs/heads/work-queue', commit);
}

let repo: string;
let files: string;

beforeEach(async () => {
  repo = fixtureRepo('fairway-compact-forged-');
  files = mkdtempSync(join(tmpdir(), 'fairway-compact-forged-files-'));
  const graph = ['a', 'b', 'c', 'd'].map((k) => ({ node_key: k, payload: { task: k }, priority: 3 }));
  writeFileSync(join(files, 'g.json'), JSON.stringify(graph));
  expect((await cli('--repo', repo, '--request-id', 'graph-1', 'submit-graph', '--graph-id', 'g', '--file', join(files, 'g.json'))).code).toBe(0);
  expect((await cli('--repo', repo, '--request-id', 'grant-1', 'dispatch-next', '--max-claims', '1')).code).toBe(0);
});

describe('a forged checkpoint is refused where its history is read', () => {
  it('an honest checkpoint explains its pre-compaction grant; a resealed forged state (an available Work raised to priority 1) is checkpoint_state_mismatch naming prior_git_sha, and nothing moves', async () => {
    const honest = (await cli('--repo', repo, '--request-id', 'grant-1', 'explain')).json;
    expect(honest.ok).toBe(true);
    const prior = tip(repo);
    expect((await cli('--repo', repo, 'compact')).json.status).toBe('committed');
    expect((await cli('--repo', repo, '--request-id', 'grant-1', 'explain')).json).toEqual(honest);
    expect((await cli('--repo', repo, 'verify', '--history')).json.history).toEqual({ checked: [prior], unreachable: null });

    rewrite(repo, editCheckpoint(ledger(repo), (state) => {
      const works = Object.values(state.works as Record<string, JsonObject>);
      const available = works.find((w) => w.state === 'available')!;
      available.effective_priority = 1;
    }));
    // Replay alone accepts the resealed state: it is self-consistent; verify --history does not.
    expect((await cli('--repo', repo, 'verify')).code).toBe(0);
    const verified = await cli('--repo', repo, 'verify', '--history');
    expect(verified.code, JSON.stringify(verified.json)).toBe(3);
    expect(verified.json.error).toMatchObject({ code: 'checkpoint_state_mismatch', details: { prior_git_sha: prior } });
    const forged = tip(repo);
    for (const query of [['--request-id', 'grant-1', 'explain'], ['--request-id', 'graph-1', 'explain']]) {
      const r = await cli('--repo', repo, ...query);
      expect(r.code, JSON.stringify(r.json)).toBe(3);
      expect(r.json.error.code).toBe('checkpoint_state_mismatch');
      expect(r.json.error.details).toMatchObject({ prior_git_sha: prior });
    }
    expect(tip(repo)).toBe(forged);
  });

  it('a root whose history_sha256 is not the ledger at prior_git_sha is checkpoint_history_mismatch', async () => {
    expect((await cli('--repo', repo, 'compact')).json.status).toBe('committed');
    const root = JSON.parse(ledger(repo)) as JsonObject & { actor: JsonValue; request: { kind: string; parameters: JsonObject; fingerprint: string }; operations: JsonObject[] };
    const other = 'ab'.repeat(32);
    root.operations[0]!.history_sha256 = other;
    root.request.parameters.history_sha256 = other;
    root.request.fingerprint = requestFingerprint(root.actor, root.request.kind, root.request.parameters);
    rewrite(repo, canonicalize(root as JsonValue));
    expect((await cli('--repo', repo, 'verify')).code).toBe(0);
    expect((await cli('--repo', repo, 'verify', '--history')).json.error.code).toBe('checkpoint_history_mismatch');
    const r = await cli('--repo', repo, '--request-id', 'grant-1', 'explain');
    expect(r.code, JSON.stringify(r.json)).toBe(3);
    expect(r.json.error.code).toBe('checkpoint_history_mismatch');
  });
});

describe('verify --history', () => {
  it('holds every checkpoint of a twice-compacted ledger to its prior Git commit, says where Git history ends, and is refused with --ledger', async () => {
    const first = tip(repo);
    expect((await cli('--repo', repo, 'compact')).json.status).toBe('committed');
    expect((await cli('--repo', repo, '--request-id', 'grant-2', 'dispatch-next', '--max-claims', '1')).code).toBe(0);
    const second = tip(repo);
    expect((await cli('--repo', repo, 'compact')).json.status).toBe('committed');
    const r = await cli('--repo', repo, 'verify', '--history');
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    expect(r.json.history).toEqual({ checked: [second, first], unreachable: null });
    expect((await cli('--repo', repo, 'verify')).json.history).toBeUndefined();

    // The compacted ledger alone, in a repository without its earlier commits: the walk stops there.
    const moved = fixtureRepo('fairway-compact-forged-moved-');
    git(moved, 'checkout', '-q', '--orphan', 'work-queue');
    writeFileSync(join(moved, 'work-queue.jsonl'), `${ledger(repo)}\n`);
    git(moved, 'add', 'work-queue.jsonl');
    git(moved, 'commit', '-q', '-m', 'compacted ledger only');
    expect((await cli('--repo', moved, 'verify', '--history')).json.history).toEqual({ checked: [], unreachable: second });

    const file = join(files, 'compacted.jsonl');
    writeFileSync(file, `${ledger(repo)}\n`);
    const refused = await cli('--ledger', file, 'verify', '--history');
    expect(refused.code).toBe(2);
    expect(refused.json.error.code).toBe('option_invalid');
  });
});
