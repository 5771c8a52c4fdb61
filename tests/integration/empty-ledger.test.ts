/**
 * An empty ledger means the same everywhere (issue 18 §4). Operator reference: "An existing log
 * that is empty, malformed, or unsupported produces an explicit error, not an empty backlog".
 * An existing queue file of zero bytes is `ledger_empty` on every path (cold replay, verify,
 * every `--ledger` read, a Git store through the publisher, the console's file store, snapshot);
 * an absent queue stays `queue_uninitialized`. The store-level cases (local Git, remote Git,
 * GitHub) are in tests/store/contract.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../../engine/errors.ts';
import { FileStore } from '../../lib/store/file.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { replayBytes } from '../support/bytes.ts';
import { runFairway } from '../support/cli.ts';
import { writeWorkerWorkflow } from '../support/worker-workflow.ts';

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }).trim();
}

async function cli(...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await runFairway(['--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

function emptyFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fairway-empty-'));
  const path = join(dir, 'work-queue.jsonl');
  writeFileSync(path, '');
  return path;
}

describe('an existing empty ledger is ledger_empty, an absent one queue_uninitialized', () => {
  it('cold replay of zero bytes is ledger_empty, not an empty projection', () => {
    let code = 'accepted';
    try {
      replayBytes(new Uint8Array(0));
    } catch (e) {
      if (!isProtocolError(e)) throw e;
      code = e.code;
    }
    expect(code).toBe('ledger_empty');
  });

  it('verify and every --ledger read command refuse a 0-byte file with ledger_empty', async () => {
    const file = emptyFile();
    for (const command of [['verify'], ['replay'], ['stats'], ['explain', '--pool', 'default'], ['next', '--pool', 'default'], ['inspect', '--work-id', 'a'.repeat(64)]]) {
      const r = await cli('--ledger', file, ...command);
      expect({ command: command[0], code: r.code, error: r.json.error?.code }).toEqual({ command: command[0], code: 3, error: 'ledger_empty' });
    }
  });

  it('a local Git queue branch holding an empty work-queue.jsonl is ledger_empty for reads and submit, and is never overwritten', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'fairway-empty-repo-'));
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), 'project\n');
    writeWorkerWorkflow(repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'init');
    const absent = await cli('--repo', repo, 'replay');
    expect(absent.json.error.code).toBe('queue_uninitialized');

    const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: '', encoding: 'utf8' }).trim();
    const tree = execFileSync('git', ['-C', repo, 'mktree'], { input: `100644 blob ${blob}\twork-queue.jsonl\n`, encoding: 'utf8' }).trim();
    const commit = git(repo, 'commit-tree', tree, '-m', 'empty queue');
    git(repo, 'update-ref', 'refs/heads/work-queue', commit);
    const payload = join(repo, '..', `${repo.split('/').pop()}-p.json`);
    writeFileSync(payload, '{"a":1}');
    for (const command of [['replay'], ['stats'], ['dispatch-next'], ['submit-work', '--file', payload]]) {
      const r = await cli('--repo', repo, ...command);
      expect({ command: command[0], code: r.code, error: r.json.error?.code }).toEqual({ command: command[0], code: 3, error: 'ledger_empty' });
    }
    expect(git(repo, 'rev-parse', 'refs/heads/work-queue')).toBe(commit);
  });

  it('the console file store reads an empty file as ledger_empty and an absent file as no queue', async () => {
    const file = emptyFile();
    await expect(new Publisher(new FileStore(file)).cache.load()).rejects.toMatchObject({ code: 'ledger_empty' });
    const absent = await new Publisher(new FileStore(`${file}.absent`)).cache.load();
    expect(absent.projection).toBeNull();
  });
});
