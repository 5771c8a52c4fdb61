/**
 * openStore: the CLI's global store flags (design/INTERFACES.md) → a store,
 * with misuse reported as coded, usage-marked ProtocolErrors.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openConsoleStore } from '../../lib/console/store.ts';
import { FileStore } from '../../lib/store/file.ts';
import { GitHubStore } from '../../lib/store/github.ts';
import { LazyGitHubStore } from '../../lib/store/github-lazy.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { openStore } from '../../lib/store/open.ts';
import { RemoteGitStore } from '../../lib/store/remote-git.ts';
import { initRepo, removeTempDirs, tempDir } from './git-fixtures.ts';

afterAll(removeTempDirs);

function rejects(options: Parameters<typeof openStore>[0], code: string): void {
  expect(() => openStore(options)).toThrow(expect.objectContaining({ name: 'ProtocolError', code }));
}

describe('openStore', () => {
  it('defaults to a local store on the current directory and resolves --repo against it', async () => {
    const repo = initRepo();
    const store = openStore({ cwd: repo });
    expect(store).toBeInstanceOf(LocalGitStore);
    expect(store.label).toBe(`git:${repo}#work-queue`);
    expect(await store.read()).toEqual({ version: null, bytes: null });
    const parent = join(repo, '..');
    expect(openStore({ cwd: parent, repo: repo.slice(parent.length + 1), branch: 'q' }).label).toBe(`git:${repo}#q`);
  });

  it('opens a remote store for --repo CLONE --remote NAME and a GitHub store for --github', async () => {
    const repo = initRepo();
    expect(openStore({ cwd: '/', repo, remote: 'origin' })).toBeInstanceOf(RemoteGitStore);
    const gh = openStore({ cwd: '/', github: 'octo-org/queue.repo', token: 't', githubBaseUrl: 'http://127.0.0.1:1' });
    expect(gh).toBeInstanceOf(LazyGitHubStore);
    expect(gh.label).toBe('github:octo-org/queue.repo#work-queue');
    // The GitHub client loads on first use; the store it answers through is the REST store here.
    const real = await (gh as LazyGitHubStore).store();
    expect(real).toBeInstanceOf(GitHubStore);
    expect(real.label).toBe(gh.label);
    expect(await (gh as LazyGitHubStore).store()).toBe(real);
  });

  it('checks a GitHub store\'s target and timeouts when it is opened, before the GitHub client loads', () => {
    const open = (extra: Record<string, unknown>) => () => openStore({ cwd: '/', github: 'o/r', token: 't', ...extra });
    expect(open({ branch: 'bad..branch' })).toThrow(expect.objectContaining({ code: 'store_options_invalid' }));
    expect(open({ env: { FAIRWAY_GITHUB_TIMEOUT_MS: 'soon' } })).toThrow(expect.objectContaining({ code: 'store_options_invalid' }));
    expect(openStore({ cwd: '/', github: 'o/r', token: 't', branch: 'q', env: {} }).label).toBe('github:o/r#q');
  });

  it('--remote NAME without --dir uses the clone in the current directory, as --dir defaults to it', () => {
    const repo = initRepo();
    const store = openStore({ cwd: repo, remote: 'origin' });
    expect(store).toBeInstanceOf(RemoteGitStore);
    expect(store.label).toBe(openStore({ cwd: '/', repo, remote: 'origin' }).label);
  });

  it('rejects contradictory or malformed flags with store_options_invalid', () => {
    const repo = initRepo();
    rejects({ cwd: repo, github: 'o/r', repo, token: 't' }, 'store_options_invalid');
    rejects({ cwd: repo, github: 'o/r', remote: 'origin', token: 't' }, 'store_options_invalid');
    for (const github of ['o', 'o/r/x', '/r', 'o/', 'o r/x', 'bad owner/r', 'o/..']) rejects({ cwd: repo, github, token: 't' }, 'store_options_invalid');
    rejects({ cwd: repo, github: 'o/r', token: 't', githubBaseUrl: 'ftp://x' }, 'store_options_invalid');
    rejects({ cwd: repo, branch: 'bad..branch' }, 'store_options_invalid');
    rejects({ cwd: repo, repo: '' }, 'store_options_invalid');
    try {
      openStore({ cwd: repo, github: 'o/r', remote: 'origin', token: 't' });
    } catch (e) {
      expect((e as { details?: unknown }).details).toEqual({ usage: true });
    }
  });

  it('requires a token for --github (github_token_missing)', () => {
    rejects({ cwd: '/', github: 'o/r' }, 'github_token_missing');
    rejects({ cwd: '/', github: 'o/r', token: '' }, 'github_token_missing');
  });

  it('reports a --repo that is not a Git repository (not_a_git_repository)', async () => {
    const plain = tempDir('plain');
    rejects({ cwd: plain, repo: 'missing' }, 'not_a_git_repository');
    const store = openStore({ cwd: plain });
    await expect(store.read()).rejects.toMatchObject({ code: 'not_a_git_repository' });
    await expect(openStore({ cwd: plain, remote: 'origin', repo: '.' }).read()).rejects.toMatchObject({ code: 'not_a_git_repository' });
  });

  it('opens a read-only file store for --ledger FILE: a missing file is ledger_not_found, - reads the given stdin reader, writes are refused', async () => {
    const dir = tempDir('ledger');
    const file = join(dir, 'work-queue.jsonl');
    writeFileSync(file, 'x\n');
    const store = openStore({ cwd: dir, ledger: file });
    expect(store).toBeInstanceOf(FileStore);
    expect(store.readOnly).toBe(true);
    expect(new TextDecoder().decode((await store.read()).bytes!)).toBe('x\n');
    await expect(store.compareAndSwap(null, new Uint8Array(0), 'no')).rejects.toMatchObject({ code: 'read_only' });
    await expect(openStore({ cwd: dir, ledger: join(dir, 'absent.jsonl') }).read()).rejects.toMatchObject({ code: 'ledger_not_found' });
    // The console's watcher of a path reads a missing file as no queue yet.
    expect(await new FileStore(join(dir, 'absent.jsonl')).read()).toEqual({ version: null, bytes: null });
    const stdin = openStore({ cwd: dir, ledger: '-', stdin: async () => new TextEncoder().encode('y\n') });
    expect(new TextDecoder().decode((await stdin.read()).bytes!)).toBe('y\n');
    for (const other of [{ repo: dir }, { remote: 'origin' }, { github: 'o/r', token: 't' }]) rejects({ cwd: dir, ledger: file, ...other }, 'source_conflict');
    expect(openStore({ cwd: initRepo() }).readOnly).toBeUndefined();
  });

  it('a ledger path that cannot be read (ENOTDIR, ELOOP) is ledger_unreadable for the console and --ledger; only a missing file is no queue', async () => {
    const dir = tempDir('unreadable');
    const file = join(dir, 'work-queue.jsonl');
    writeFileSync(file, 'x\n');
    const loop = join(dir, 'loop.jsonl');
    symlinkSync(loop, loop);
    for (const [path, errno] of [[join(file, 'inside.jsonl'), 'ENOTDIR'], [loop, 'ELOOP']] as const) {
      const expected = { name: 'ProtocolError', code: 'ledger_unreadable', message: expect.stringContaining(errno) };
      await expect(openConsoleStore({ kind: 'ledger', ledger: path }).read()).rejects.toMatchObject(expected);
      await expect(openStore({ cwd: dir, ledger: path }).read()).rejects.toMatchObject(expected);
    }
    expect(await openConsoleStore({ kind: 'ledger', ledger: join(dir, 'absent.jsonl') }).read()).toEqual({ version: null, bytes: null });
  });

  it('the console\'s GitHub store reads an empty FAIRWAY_GITHUB_API_URL as absent (api.github.com), as the CLI\'s does', () => {
    const source = { kind: 'github', github: 'o/r', branch: 'work-queue' } as const;
    for (const [env, api] of [
      [{ GH_TOKEN: 't', FAIRWAY_GITHUB_API_URL: '' }, 'graphql'],
      [{ GH_TOKEN: 't' }, 'graphql'],
      [{ GH_TOKEN: 't', FAIRWAY_GITHUB_API_URL: 'https://ghe.example.com/api/v3' }, 'rest'],
    ] as const) {
      const store = openConsoleStore(source, env);
      expect(store, JSON.stringify(env)).toBeInstanceOf(LazyGitHubStore);
      expect((store as LazyGitHubStore).api, JSON.stringify(env)).toBe(api);
    }
  });
});
