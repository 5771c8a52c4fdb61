/**
 * `fairway verify`: full validation of the queue's ledger, nothing else: the ledger on the
 * queue branch of the selected store (`--dir`, `--remote`, `-R`), or `--ledger FILE`.
 */
import { fail } from '../../engine/errors.ts';
import { coldReplay } from '../../lib/publisher/cache.ts';
import { checkHistory, type HistoryCheck } from '../../lib/publisher/history.ts';
import { envThreadsError, MAX_THREADS, MIN_BYTES, ThreadVerifier, threadVerifier } from '../../lib/replay/thread-verifier.ts';
import { readLedgerInput } from '../input.ts';
import type { CommandModule } from '../context.ts';
import { intIn } from '../parse.ts';
import { replayProgress } from '../progress.ts';
import { printJson, UsageError, type Io } from '../output.ts';
import { refuseSourceConflict, storeFor } from '../source.ts';
import type { LedgerStore } from '../../lib/store/types.ts';

/** What the replay worker threads did, when any were asked for (`--threads` or FAIRWAY_REPLAY_THREADS). */
type ReplayThreads =
  | { requested: number; used: true; threads: number; records: number; checked_ahead: number; rechecked: number }
  | { requested: number; used: false; reason: 'ledger_too_small' | 'workers_unavailable' };

/** Where the ledger came from: a file, or a store's branch at a version. */
type VerifySource = { ledger: string } | { store: LedgerStore };

export async function verify(io: Io, opts: VerifySource & { json: boolean; threads?: number; history?: boolean }): Promise<void> {
  if (opts.history === true && 'ledger' in opts) throw new UsageError('--history reads earlier ledgers from Git: it needs the queue branch (--dir, --remote or -R), not --ledger', 'option_invalid');
  if (opts.threads === undefined) {
    const bad = envThreadsError();
    if (bad !== null) throw new UsageError(bad, 'option_invalid');
  }
  let bytes: Uint8Array;
  let from: { store: string; version: string | null } | null = null;
  if ('ledger' in opts) bytes = await readLedgerInput(opts.ledger);
  else {
    const read = await opts.store.read();
    if (read.bytes === null) fail('queue_uninitialized', `no queue ledger on ${opts.store.label}: the first submit-work or submit-graph creates it`);
    bytes = read.bytes;
    from = { store: opts.store.label, version: read.version };
  }
  const started = performance.now();
  const progress = replayProgress(opts.json);
  const own = opts.threads === undefined ? undefined : new ThreadVerifier({ threads: opts.threads });
  const verifier = own ?? threadVerifier;
  try {
    const projection = coldReplay(bytes, progress.onProgress, verifier);
    progress.done();
    const ms = Math.round(performance.now() - started);
    const threads = replayThreads(verifier, bytes.length);
    // Spec 7.10: a checkpoint root is held to the history it claims to replace, as far as Git reaches.
    const history = opts.history === true && 'store' in opts ? await checkHistory(opts.store, projection) : null;
    const result = {
      ok: true, tip: projection.tip, commits: projection.commitCount, policy_epoch: projection.policyEpoch, bytes: bytes.length,
      ...(from === null ? {} : { store: from.store, version: from.version }),
      ...(threads === null ? {} : { replay_threads: threads }),
      ...(history === null ? {} : { history }),
    };
    if (opts.json) printJson(io, result);
    else io.out(`ledger valid: ${result.commits} commits, tip ${result.tip ?? '(empty)'}, policy epoch ${result.policy_epoch ?? '-'} (${bytes.length} bytes in ${ms} ms${from === null ? '' : `; ${from.store} at ${from.version}`})${threads === null ? '' : `; ${describe(threads)}`}${history === null ? '' : `; ${historyText(history)}`}`);
  } finally {
    await own?.close();
  }
}

function replayThreads(verifier: ThreadVerifier, bytes: number): ReplayThreads | null {
  if (verifier.threads === 0) return null;
  const last = verifier.last;
  if (last === null) return { requested: verifier.threads, used: false, reason: bytes < verifier.minBytes ? 'ledger_too_small' : 'workers_unavailable' };
  return { requested: verifier.threads, used: true, threads: last.threads, records: last.records, checked_ahead: last.ahead, rechecked: last.rechecked };
}

function historyText(h: HistoryCheck): string {
  const held = `${h.checked.length} checkpoint${h.checked.length === 1 ? '' : 's'} held to the history at ${h.checked.length === 1 ? 'its' : 'their'} prior Git commit${h.checked.length === 1 ? '' : 's'}`;
  return h.unreachable === null ? held : `${held}; prior Git commit ${h.unreachable} is not reachable`;
}

function describe(t: ReplayThreads): string {
  if (!t.used) return t.reason === 'ledger_too_small' ? `no worker threads: the ledger is under ${MIN_BYTES / 2 ** 20} MiB` : 'no worker threads: they could not start';
  return `${t.checked_ahead} of ${t.records} records checked ahead on ${t.threads} worker thread${t.threads === 1 ? '' : 's'}`;
}

export const registerVerify: CommandModule = (program, ctx) => {
  program.command('verify')
    .description('Validate the queue\'s ledger (the queue branch of --dir, --remote or -R, or a --ledger file): codec, closed schemas, causal chain, every operation and Claim; print tip, commits and policy epoch.')
    .option('--threads <n>', `check each record's codec, schema and envelope on N worker threads while replay folds, for ledgers of ${MIN_BYTES / 2 ** 20} MiB or more; same verdict (0..${MAX_THREADS}; default: FAIRWAY_REPLAY_THREADS, else 0)`, intIn('--threads', 0, MAX_THREADS))
    .option('--history', 'also hold each checkpoint root to the ledger at its prior Git commit (following prior_git_sha while Git reaches it): checkpoint_history_mismatch or checkpoint_state_mismatch when it is not what it replaced')
    .addHelpText('after', `
Reads the queue branch of the repository in the current directory, --dir PATH, --remote NAME or
-R OWNER/REPO (the ledger at the branch's current version), or a --ledger FILE offline. Nothing
is written. A ledger that fails is reported with its code, commit and line (exit 3), never repaired.

Output (--json): {"ok": true, "tip", "commits", "policy_epoch", "bytes", "store"?, "version"?,
  "replay_threads"?, "history"?}   (store and version: the store read and the branch version it was read at;
  history, with --history: {"checked": [prior_git_sha, ...], "unreachable": prior_git_sha | null})`)
    .action(ctx.action(async (g, o: { threads?: number; history?: boolean }) => {
      refuseSourceConflict(g); // a --ledger file beside a named store would verify the file and ignore the store
      const source: VerifySource = g.ledger !== undefined ? { ledger: g.ledger } : { store: storeFor(g) };
      await verify(ctx.io, { ...source, json: g.json === true, threads: o.threads, history: o.history });
    }));
};
