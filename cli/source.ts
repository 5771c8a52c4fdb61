/**
 * Where a command's queue comes from: an offline ledger file (read-only) or a
 * ledger store chosen by the global flags, with the one Publisher for writes.
 * Also the local operator's principal (unauthenticated in local mode: whatever
 * `--principal` / FAIRWAY_PRINCIPAL says; its Actor is lib/publisher/actor.ts `actorOf`).
 */
import { execFile } from 'node:child_process';
import { basename, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fail, ProtocolError } from '../engine/errors.ts';
import type { Projection } from '../engine/replay/index.ts';
import { historyReader, type HistoryReader } from '../lib/publisher/history.ts';
import { Publisher } from '../lib/publisher/publisher.ts';
import { openStore, type OpenStoreOptions } from '../lib/store/open.ts';
import type { LedgerStore } from '../lib/store/types.ts';
import { apiUrlFor, checkedPrincipal, DEFAULT_HOST, missingTokenMessage, type GlobalOptions } from './globals.ts';
import { readStdin } from './input.ts';
import { UsageError } from './output.ts';
import { replayProgress } from './progress.ts';

const run = promisify(execFile);

export interface ReadSource {
  label: string;
  load(): Promise<Projection>;
  /** Reads pre-compaction history through a checkpoint's prior_git_sha (absent: a ledger file has none). */
  history?: HistoryReader;
}

/** The store the global options select: a read-only `--ledger FILE` or a queue branch (`--dir`, `--remote`, `-R`). */
export function storeFor(g: GlobalOptions): LedgerStore {
  refuseSourceConflict(g);
  return openStore(storeOptionsFor(g));
}

/** `--ledger FILE` is the source alone: with --repo, --dir or --remote it is `source_conflict` (exit 2). */
export function refuseSourceConflict(g: GlobalOptions): void {
  if (g.ledger !== undefined && (g.dir !== undefined || g.remote !== undefined || g.github !== undefined)) {
    throw new UsageError('--ledger reads a file offline; it cannot be combined with --repo, --dir or --remote', 'source_conflict');
  }
}

/** The store the global options select, as `openStore` options. */
export function storeOptionsFor(g: GlobalOptions): OpenStoreOptions {
  if (g.ledger !== undefined) return { ledger: g.ledger, stdin: () => readStdin('--ledger'), cwd: process.cwd() };
  if (g.github !== undefined && (g.token === undefined || g.token === '')) {
    throw new ProtocolError('github_token_missing', missingTokenMessage(g.host ?? DEFAULT_HOST), {}, { usage: true });
  }
  const githubBaseUrl = g.github !== undefined ? apiUrlFor(g) : undefined;
  return {
    repo: g.dir,
    remote: g.remote,
    github: g.github,
    branch: g.branch,
    token: g.token,
    ...(githubBaseUrl !== undefined && { githubBaseUrl }),
    cwd: process.cwd(),
  };
}

/** Read-only commands accept `--ledger FILE` or any store; a store with Git history also reads pre-compaction history. */
export function readSource(g: GlobalOptions, store: LedgerStore = storeFor(g)): ReadSource {
  return {
    label: store.label,
    ...(store.readOnly !== true && { history: historyReader(store) }),
    load: async () => {
      const progress = replayProgress(g.json === true);
      const { projection } = await new Publisher(store, { onProgress: progress.onProgress }).cache.load().finally(() => progress.done());
      if (projection === null) fail('queue_uninitialized', `no queue on ${store.label} yet: the first submit-work or submit-graph creates it`);
      return projection;
    },
  };
}

/** Mutating commands need a store; `--ledger` is read-only. */
export function writeTarget(g: GlobalOptions): { store: LedgerStore; publisher: Publisher } {
  if (g.ledger !== undefined) throw new UsageError('--ledger is read-only; mutations publish to a Git branch (--dir, --remote or -R OWNER/REPO)', 'ledger_read_only');
  const store = storeFor(g);
  // The first load of a large ledger is a cold replay: show progress on a terminal.
  const progress = replayProgress(g.json === true);
  return { store, publisher: new Publisher(store, { onProgress: progress.onProgress }) };
}

export function principalOf(g: GlobalOptions): string {
  if (g.principal !== undefined) return checkedPrincipal(g.principal);
  const env = process.env.FAIRWAY_PRINCIPAL;
  return env === undefined ? '1' : checkedPrincipal(env, 'FAIRWAY_PRINCIPAL');
}

/** A fresh stable request id unless the operator gave one (retries must reuse it). */
export function requestIdOf(g: GlobalOptions, kind: string): string {
  if (g.requestId !== undefined) return g.requestId;
  const rand = globalThis.crypto.randomUUID().replace(/-/g, '').slice(0, 16);
  return `cli-${kind}-${rand}`;
}

/**
 * The queue repository a new queue's genesis Actor names (an existing queue's is the
 * ledger's, which the publisher fills in): `-R OWNER/REPO`, else the local repository's
 * origin, else `local/<directory>`.
 */
export async function queueRepository(g: GlobalOptions): Promise<string> {
  if (g.github !== undefined) return g.github;
  const repo = resolve(g.dir ?? process.cwd());
  try {
    const { stdout } = await run('git', ['-C', repo, 'config', '--get', 'remote.origin.url']);
    const m = /[:/]([^/:]+\/[^/]+?)(?:\.git)?\s*$/.exec(stdout.trim());
    if (m) return m[1]!;
  } catch {
    // no origin: a local-only queue
  }
  return `local/${basename(repo)}`;
}
