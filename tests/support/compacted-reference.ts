/**
 * A queue migrated from the reference implementation (../shared/reference/gh-aw-generated/
 * ledger-1m.jsonl: grants across classes and fairness keys, Releases, DeliveryFailures and
 * Observations under the reference's request ids) committed as the queue branch of a real local
 * Git repository, paused and resumed through the real CLI, then compacted by `fairway compact`:
 * what a checkpoint drops (a grant's packer pre-state, a Control's operation, a DeliveryFailure's
 * and an Observation's commit, a foreign Release's commit) is only at its prior Git commit. The
 * fixture of the compaction tests of the read views (tests/compaction/console-*.test.ts,
 * inspect.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { replayLedger, type Projection } from '../../engine/replay/index.ts';
import type { ConsoleConfig } from '../../lib/console/config.ts';
import { ConsoleRuntime } from '../../lib/console/runtime.ts';
import { FileStore } from '../../lib/store/file.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { dirCli, fixtureRepo, git } from './fixture-repo.ts';
import { missingReference, REFERENCE_ROOT } from './reference.ts';

export const REFERENCE_LEDGER = 'gh-aw-generated/ledger-1m.jsonl';
export const referenceMissing = (): boolean => missingReference([REFERENCE_LEDGER]).length > 0;

/** The reference ledger's text. */
export function referenceLedger(): string {
  return readFileSync(new URL(REFERENCE_LEDGER, REFERENCE_ROOT), 'utf8');
}

/** A repository whose queue branch holds `text` as its one ledger commit (a migration's first write). */
export function migratedRepo(text: string, prefix = 'fairway-migrated-'): string {
  const repo = fixtureRepo(prefix);
  const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: text, encoding: 'utf8', maxBuffer: 64 << 20 }).trim();
  const tree = execFileSync('git', ['-C', repo, 'mktree'], { input: `100644 blob ${blob}\twork-queue.jsonl\n`, encoding: 'utf8' }).trim();
  git(repo, 'update-ref', 'refs/heads/work-queue', git(repo, 'commit-tree', tree, '-m', 'migrated ledger'));
  return repo;
}

/** The queue branch's ledger written to a file of its own (a source without Git history). */
export function ledgerFile(repo: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'fairway-compacted-file-')), 'work-queue.jsonl');
  writeFileSync(file, execFileSync('git', ['-C', repo, 'show', 'refs/heads/work-queue:work-queue.jsonl'], { maxBuffer: 64 << 20 }));
  return file;
}

export const CONSOLE_CONFIG: ConsoleConfig = { source: { kind: 'repo', repo: '/unused', branch: 'work-queue' }, demo: false, mode: 'local', pollMs: 5000, principal: '1' };

/** A console runtime on the repository's queue branch (with its Git history). */
export const repoRuntime = (repo: string): ConsoleRuntime => new ConsoleRuntime(CONSOLE_CONFIG, new LocalGitStore({ repo }));

/** A console runtime on a ledger file (no Git history). */
export const fileRuntime = (file: string): ConsoleRuntime => new ConsoleRuntime({ ...CONSOLE_CONFIG, source: { kind: 'ledger', ledger: file } }, new FileStore(file));

export interface CompactedReference {
  repo: string;
  /** The whole ledger just before compaction (every commit retained). */
  before: Projection;
  /** The compacted ledger: the checkpoint root alone. */
  compacted: Projection;
  /** The Git commit the checkpoint replaced (its prior_git_sha). */
  prior: string;
  /** An evaluation time after the last commit, for views before and after. */
  asOf: number;
}

/**
 * The migrated reference queue with grants paused for an incident, resumed, and paused again for
 * maintenance (three CLI Controls), then compacted through the real CLI.
 */
export async function compactedReference(): Promise<CompactedReference> {
  const repo = migratedRepo(referenceLedger(), 'fairway-compacted-reference-');
  for (const [paused, reason] of [['true', 'incident'], ['false', 'resolved'], ['true', 'maintenance']] as const) {
    const r = await dirCli(repo, '--json', 'control', '--name', 'grants_paused', '--paused', paused, '--reason', reason);
    expect(r.code, r.out).toBe(0);
  }
  const store = new LocalGitStore({ repo });
  const before = replayLedger((await store.read()).bytes!);
  const prior = git(repo, 'rev-parse', 'refs/heads/work-queue');
  const c = await dirCli(repo, '--json', 'compact');
  expect(c.json.status, c.out).toBe('committed');
  const compacted = replayLedger((await store.read()).bytes!);
  expect(compacted.commitCount).toBe(1);
  expect(compacted.checkpoint?.priorGitSha).toBe(prior);
  return { repo, before, compacted, prior, asOf: before.lastCommit!.at + 60_000 };
}
