/**
 * `fairway doctor`: checks the queue store and, with `fix`, repairs what a
 * killed process can leave behind — never anything a live process may own:
 *
 * - `store_read`: the branch can be read; `ledger`: its bytes replay (a ledger
 *   that fails validation is reported, never rewritten).
 * - `ref_lock` (Git stores): a stale `<branch>.lock` / `packed-refs.lock`, and for a remote
 *   store the clone's `refs/fairway/tips/<remote>/<branch>.lock`.
 *   Removed with `fix` only when no running git process touches the
 *   repository (/proc); otherwise reported with the holders' pids.
 * - `scratch_refs` (remote Git stores): `refs/fairway/fetch/*` left by killed
 *   fetches; removed with `fix` when stale (old, or their process is gone).
 */
import { isProtocolError, whereSuffix } from '../../engine/errors.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import type { GitContext } from './git-cli.ts';
import { deleteRefs, gitDirs, isStaleScratch, listScratchRefs, refLocks, removeStaleLock, SCRATCH_MAX_AGE_MS, shellQuote } from './git-locks.ts';
import { LocalGitStore } from './local-git.ts';
import { RemoteGitStore, tipsRefOf } from './remote-git.ts';
import { LEDGER_FILE, type LedgerStore } from './types.ts';

export type CheckStatus = 'ok' | 'problem' | 'fixed';

export interface DoctorCheck {
  name: 'store_read' | 'ledger' | 'ref_lock' | 'scratch_refs';
  status: CheckStatus;
  message: string;
  details?: Record<string, unknown>;
}

export interface DoctorReport {
  ok: boolean;
  store: string;
  checks: DoctorCheck[];
}

export interface DoctorOptions {
  fix: boolean;
  /** Scratch refs older than this are stale (default SCRATCH_MAX_AGE_MS). */
  scratchMaxAgeMs?: number;
  now?: number;
}

export async function doctor(store: LedgerStore, options: DoctorOptions): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const now = options.now ?? Date.now();
  if (store instanceof LocalGitStore || store instanceof RemoteGitStore) {
    const ctx: GitContext = { cwd: store.repository };
    // A remote store's fetches update the clone's tips ref: a lock left on it sends every later fetch the long way.
    const refs = store instanceof RemoteGitStore ? [store.ref, tipsRefOf(store.remote, store.branch)] : [store.ref];
    checks.push(await refLockCheck(ctx, refs, options.fix, now));
    if (store instanceof RemoteGitStore) checks.push(await scratchCheck(ctx, options.fix, options.scratchMaxAgeMs ?? SCRATCH_MAX_AGE_MS, now));
  }
  checks.push(...(await readChecks(store)));
  return { ok: checks.every((c) => c.status !== 'problem'), store: store.label, checks };
}

async function readChecks(store: LedgerStore): Promise<DoctorCheck[]> {
  let snapshot;
  try {
    snapshot = await store.read();
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return [{ name: 'store_read', status: 'problem', message: `${e.code}: ${e.message}`, details: { code: e.code } }];
  }
  const read: DoctorCheck = { name: 'store_read', status: 'ok', message: snapshot.version === null ? 'no queue branch yet (an empty queue)' : `branch at ${snapshot.version}`, details: { version: snapshot.version } };
  // A branch without the ledger file is an empty queue too (spec 7.1), and says so: it is also what a mistyped --branch looks like.
  if (snapshot.bytes === null) return snapshot.version === null ? [read] : [read, { name: 'ledger', status: 'ok', message: `no ${LEDGER_FILE} on the branch yet (an empty queue: the first submit-work or submit-graph creates it)`, details: { commits: 0, bytes: null } }];
  try {
    const projection = replayLedger(snapshot.bytes);
    return [read, { name: 'ledger', status: 'ok', message: `valid: ${projection.commitCount} commits, tip ${projection.tip ?? '(none)'}`, details: { commits: projection.commitCount, bytes: snapshot.bytes.length } }];
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    // Where replay refused it, as verify names it: the commit, line, operation and field.
    const where = { commit: e.commit, line: e.line, operation: e.operation, path: e.path };
    const located = Object.fromEntries(Object.entries(where).filter(([, v]) => v !== undefined));
    return [read, {
      name: 'ledger', status: 'problem',
      message: `${e.code}: ${e.message}${whereSuffix(e)} (the ledger is never rewritten; see fairway verify)`,
      details: { code: e.code, ...located },
    }];
  }
}

async function refLockCheck(ctx: GitContext, refs: readonly string[], fix: boolean, now: number): Promise<DoctorCheck> {
  const dirs = await gitDirs(ctx);
  const locks = [...new Map(refs.flatMap((ref) => refLocks(dirs, ref, now)).map((l) => [l.path, l])).values()];
  if (locks.length === 0) return { name: 'ref_lock', status: 'ok', message: `no lock on ${refs.join(', ')}` };
  const left: Array<Record<string, unknown>> = [];
  const removed: string[] = [];
  for (const lock of locks) {
    const seconds = Math.round(lock.ageMs / 1000);
    if (fix) {
      const r = removeStaleLock(lock, dirs);
      if (r.removed) {
        removed.push(lock.path);
        continue;
      }
      left.push({ lock: lock.path, age_ms: Math.round(lock.ageMs), holders: r.holders?.map((h) => h.pid) ?? null, reason: r.holders === null ? 'running processes cannot be listed here' : `held by running git (pid ${r.holders.map((h) => h.pid).join(', ')})` });
    } else {
      left.push({ lock: lock.path, age_ms: Math.round(lock.ageMs), command: `rm -f -- ${shellQuote(lock.path)}`, reason: `present for ${seconds} s` });
    }
  }
  if (left.length === 0) return { name: 'ref_lock', status: 'fixed', message: `removed stale lock ${removed.join(', ')}`, details: { removed } };
  const hint = fix ? 'not removed: a running git may own it; run doctor again once it has finished' : 'run fairway doctor --fix to remove it once no git process owns it';
  return { name: 'ref_lock', status: 'problem', message: `${left.map((l) => `${String(l.lock)} (${String(l.reason)})`).join('; ')}; ${hint}`, details: { locks: left, removed } };
}

async function scratchCheck(ctx: GitContext, fix: boolean, maxAgeMs: number, now: number): Promise<DoctorCheck> {
  const refs = await listScratchRefs(ctx);
  const stale = refs.filter((s) => isStaleScratch(s, maxAgeMs, now)).map((s) => s.ref);
  if (stale.length === 0) return { name: 'scratch_refs', status: 'ok', message: refs.length === 0 ? 'no scratch refs' : `${refs.length} scratch ref(s) of live fetches`, details: { live: refs.length } };
  if (!fix) return { name: 'scratch_refs', status: 'problem', message: `${stale.length} stale scratch ref(s) left by killed fetches; run fairway doctor --fix to remove them`, details: { stale } };
  await deleteRefs(ctx, stale);
  return { name: 'scratch_refs', status: 'fixed', message: `removed ${stale.length} stale scratch ref(s)`, details: { removed: stale } };
}
