/**
 * What a surface needs to run the projector against a queue store: the `issues` settings
 * from the repository's aw.json, the journal branch beside the queue branch, the Issues
 * client with the projector credential, the producing run's identity and link. Shared by
 * `fairway issues sync` and the Action's activation/conclusion steps (which call the CLI).
 */
import { fail } from '../../engine/errors.ts';
import { safeRepository } from '../../engine/issues/escape.ts';
import { readAwJsonSettings, type IssueSettings } from '../config/aw.ts';
import { actionsRunFromEnv } from '../github/context.ts';
import { envApiRoot, serverHostOf } from '../github/host.ts';
import type { Publisher, PublishingActor } from '../publisher/publisher.ts';
import { openStore, type OpenStoreOptions } from '../store/open.ts';
import { DEFAULT_BRANCH } from '../store/types.ts';
import { IssuesClient } from './github.ts';
import { JOURNAL_SUFFIX, JournalStore } from './journal-store.ts';
import type { ProjectorDeps } from './projector.ts';
import { issueTemplates } from './templates.ts';

type Env = Readonly<Record<string, string | undefined>>;

export const AW_JSON = '.github/workflows/aw.json';

export async function issueSettings(publisher: Publisher): Promise<IssueSettings> {
  return readAwJsonSettings(await publisher.store.readDefaultBranchFile(AW_JSON)).issues;
}

/** The journal store: the queue store's own kind, on `<branch>-issues`. */
export function journalFor(options: OpenStoreOptions): JournalStore {
  return new JournalStore(openStore({ ...options, branch: `${options.branch ?? DEFAULT_BRANCH}${JOURNAL_SUFFIX}` }));
}

function positive(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) fail('option_invalid', `${name} must be a whole number of milliseconds, not ${JSON.stringify(raw)}`, {}, { usage: true });
  return n;
}

export function issuesClient(env: Env): IssuesClient {
  const token = env.FAIRWAY_ISSUES_TOKEN || env.GH_TOKEN || env.GITHUB_TOKEN || '';
  if (token === '') fail('github_token_missing', 'backing-Issue projection needs a token with issues: write in FAIRWAY_ISSUES_TOKEN, GH_TOKEN or GITHUB_TOKEN', {}, { usage: true });
  const baseUrl = envApiRoot(env);
  const writeIntervalMs = positive(env, 'FAIRWAY_ISSUES_WRITE_INTERVAL_MS');
  // The server the API root serves (GHES's HOST for https://HOST/api/v3), as the gate observer reads it.
  const host = serverHostOf(env);
  return new IssuesClient({
    token, ...(baseUrl !== undefined && { baseUrl }), ...(writeIntervalMs !== undefined && { writeIntervalMs }), host,
  });
}

/** The producing run's URL inside GitHub Actions (generated-by footers), else null. */
export function runUrlFrom(env: Env, host: string): string | null {
  const run = actionsRunFromEnv(env as Record<string, string | undefined>);
  if (run === null || safeRepository(run.repository) === null) return null;
  return `https://${host}/${run.repository}/actions/runs/${run.runId}${run.runAttempt > 1 ? `/attempts/${run.runAttempt}` : ''}`;
}

/** This projector run's identity in journal intents: its Actions run/attempt, plus a nonce. */
export function ownerFrom(env: Env): string {
  const run = actionsRunFromEnv(env as Record<string, string | undefined>);
  const nonce = globalThis.crypto.randomUUID().replace(/-/g, '').slice(0, 12);
  return run === null ? `local-${nonce}` : `run-${run.runId}-${run.runAttempt}-${nonce}`;
}

/**
 * `projector_ref` (and the `ref` a projector rule must name): FAIRWAY_PROJECTOR_REF, else the
 * running workflow file's revision (GITHUB_WORKFLOW_SHA), else GITHUB_SHA, else the ledger's Git version.
 */
export function projectorRefFrom(env: Env, ledgerVersion: string | null): string {
  for (const v of [env.FAIRWAY_PROJECTOR_REF, env.GITHUB_WORKFLOW_SHA, env.GITHUB_SHA, ledgerVersion ?? undefined]) {
    if (v !== undefined && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(v)) return v;
  }
  return fail('projector_ref_missing', 'no projector revision: set GITHUB_SHA or FAIRWAY_PROJECTOR_REF to the 40/64-hex revision of the projecting workflow');
}

export function projectorDeps(input: { publisher: Publisher; journal: JournalStore; client: IssuesClient; actor: PublishingActor; prefix: string; env: Env; ledgerVersion: string | null }): ProjectorDeps {
  return {
    publisher: input.publisher, journal: input.journal, client: input.client, actor: input.actor, prefix: input.prefix,
    templates: issueTemplates(), runUrl: runUrlFrom(input.env, input.client.host), owner: ownerFrom(input.env),
    projectorRef: projectorRefFrom(input.env, input.ledgerVersion),
  };
}
