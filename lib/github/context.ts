/**
 * Trusted context of a Fairway step: the actor it publishes as (role, principal, queue
 * repository and, inside GitHub Actions, its own workflow run), the worker's own native
 * run from the job context, and the GitHub API clients with separate credentials for
 * launching and for foreign Issue/PR reads (spec 7.16: the queue credential is not
 * assumed sufficient for other repositories).
 */
import { fail } from '../../engine/errors.ts';
import { isDecimalId } from '../../engine/identity/index.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { actorOf } from '../publisher/actor.ts';
import { actorOn, type PublishingActor } from '../publisher/publisher.ts';
import { GitHubApi, type GitHubApiOptions } from './api.ts';
import type { DispatchPostOptions } from './dispatch-post.ts';
import { envApiRoot, serverHostOf } from './host.ts';

type Env = Record<string, string | undefined>;

/** The job context of a GitHub Actions run (GITHUB_* variables); null outside Actions. */
export interface ActionsRun {
  repository: string;
  runId: string;
  runAttempt: number;
  /** Workflow file path of this run, from GITHUB_WORKFLOW_REF. */
  workflow: string | null;
}

/**
 * The job context, parsed strictly. An empty variable is an absent one (GitHub never sets them
 * empty), so `GITHUB_REPOSITORY=""` leaves no run (`context_missing` / `sender_run_missing` at
 * the command), and so does an absent GITHUB_RUN_ATTEMPT: GitHub sets it in every job, and its
 * absence is no evidence of the original attempt 1 (it used to be read as 1). A variable that is present but not what GitHub writes is `context_invalid`
 * naming it, a usage error (exit 2) like `context_missing`: GITHUB_RUN_ID a decimal id,
 * GITHUB_RUN_ATTEMPT a decimal integer 1..4096 (no `0x1`, no spaces), GITHUB_REPOSITORY
 * `OWNER/NAME`, GITHUB_WORKFLOW_REF `OWNER/NAME/PATH@REF`.
 */
export function actionsRunFromEnv(env: Env): ActionsRun | null {
  const runId = present(env.GITHUB_RUN_ID);
  const repository = present(env.GITHUB_REPOSITORY);
  const attemptText = present(env.GITHUB_RUN_ATTEMPT);
  if (runId === undefined || repository === undefined || attemptText === undefined) return null;
  if (!isDecimalId(runId)) invalidContext('GITHUB_RUN_ID', 'is not a run id (a positive decimal id)');
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository)) invalidContext('GITHUB_REPOSITORY', 'is not OWNER/NAME');
  const attempt = /^[1-9][0-9]{0,3}$/.test(attemptText) ? Number(attemptText) : 0;
  if (attempt < 1 || attempt > 4096) invalidContext('GITHUB_RUN_ATTEMPT', 'is not an attempt number (a decimal integer 1..4096)');
  const ref = present(env.GITHUB_WORKFLOW_REF);
  let workflow: string | null = null;
  if (ref !== undefined) {
    const m = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+\/([^@\s]+)@(\S+)$/.exec(ref);
    if (m === null) invalidContext('GITHUB_WORKFLOW_REF', 'is not OWNER/NAME/PATH@REF (e.g. octo-org/app/.github/workflows/worker.yml@refs/heads/main)');
    workflow = m[1]!;
  }
  return { repository, runId, runAttempt: attempt, workflow };
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function invalidContext(variable: string, problem: string): never {
  return fail('context_invalid', `${variable} ${problem}`, {}, { usage: true, variable });
}

function token(env: Env, ...names: string[]): string {
  for (const n of names) {
    const v = env[n];
    if (v !== undefined && v !== '') return v;
  }
  return fail('github_token_missing', `no GitHub token: set ${names.join(' or ')}, or log in with \`gh auth login\` (fairway reads \`gh auth token\` when gh is installed)`, {}, { usage: true });
}

/** Reads (runs, repositories) with the launch credential. */
export function launchApi(env: Env, extra: Partial<GitHubApiOptions> = {}): GitHubApi {
  return new GitHubApi({ token: token(env, 'FAIRWAY_DISPATCH_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'), ...baseUrl(env), host: serverHostOf(env), ...extra });
}

/**
 * Foreign Issue/PR reads with their own (read-only) credential when configured. The client's
 * `host` is the server its API root serves (`serverHostOf`): a gate naming another host is
 * `host_mismatch` (unknown), never read from this server.
 */
export function observeApi(env: Env, extra: Partial<GitHubApiOptions> = {}): GitHubApi {
  return new GitHubApi({ token: token(env, 'FAIRWAY_OBSERVE_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'), ...baseUrl(env), host: serverHostOf(env), ...extra });
}

export function dispatchPostOptions(env: Env, extra: Partial<DispatchPostOptions> = {}): DispatchPostOptions {
  return { token: token(env, 'FAIRWAY_DISPATCH_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'), ...baseUrl(env), ...extra };
}

/** The API root of `env` (lib/github/host.ts `envApiRoot`: an empty FAIRWAY_GITHUB_API_URL is an absent one). */
function baseUrl(env: Env): { baseUrl?: string } {
  const url = envApiRoot(env);
  return url === undefined ? {} : { baseUrl: url };
}

/** The trusted actors of one lifecycle step, bound to this step's own run inside Actions (the publisher names the queue repository). */
export function lifecycleActors(principal: string, env: Env): Record<'dispatcher' | 'reconciler' | 'administrator', PublishingActor> {
  const run = actionsRunFromEnv(env);
  return {
    dispatcher: actorOf('dispatcher', principal, run),
    reconciler: actorOf('reconciler', principal, run),
    administrator: actorOf('administrator', principal, run),
  };
}

/**
 * The start marker's one sender (spec 7.8 "Recording Dispatch(started) atomically selects one
 * trusted sender run/attempt"): the dispatcher of this GitHub Actions run, named by its own job
 * context (GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_WORKFLOW_REF, GITHUB_REPOSITORY). Outside
 * such a run there is no authenticated sender run to select, so launching is refused
 * (`sender_run_missing`) before anything is granted or written; flags cannot stand in for it.
 * The marker records the sender, so it names the queue `repository` itself.
 */
export function launchSender(principal: string, repository: string, env: Env): Actor {
  const run = actionsRunFromEnv(env);
  if (run === null || run.workflow === null) {
    const missing = ['GITHUB_RUN_ID', 'GITHUB_RUN_ATTEMPT', 'GITHUB_REPOSITORY', 'GITHUB_WORKFLOW_REF'].filter((k) => env[k] === undefined || env[k] === '');
    return fail('sender_run_missing', `launch records a start marker that selects one authenticated sender run (spec 7.8), so it runs inside the dispatcher's GitHub Actions job; missing ${missing.join(', ')}`, {}, { usage: true, missing });
  }
  return actorOn(actorOf('dispatcher', principal, run), repository);
}
