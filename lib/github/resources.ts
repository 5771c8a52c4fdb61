/**
 * The trusted Issue/PR resolver (spec 7.16 "Stable identity and permissions", "Explicit
 * condition semantics"). One authenticated read per resource: the repository (its
 * immutable id must match; read once per refresh for all its resources), then the Issue through the Issues endpoint (a PR number there
 * is a type mismatch) or the PR through the Pulls endpoint (which alone reports `merged`).
 * Any failure or identity/type/host mismatch yields a non-`ok` read status, which
 * normalizes to an `unknown` Observation: it never satisfies a gate.
 */
import type { GateFacts } from '../../engine/lifecycle/observations.ts';
import type { ResourceIdentity } from '../../engine/state/state.ts';
import { readStatusOf, type GitHubApi } from './api.ts';
import { IssueSchema, PullSchema, RepositorySchema, type GitHubRepository } from './schemas.ts';

/**
 * Repository reads shared by the resources of one refresh (`owner/name` → the read): several
 * gates in one repository read it once. Each resource still checks the repository's immutable
 * id (and, for an Issue, that GitHub answered from that repository) against its own identity.
 */
export type RepositoryReads = Map<string, Promise<GitHubRepository>>;

function splitRepository(full: string): { owner: string; repo: string } | null {
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec(full);
  return m === null ? null : { owner: m[1]!, repo: m[2]! };
}

function epoch(iso: string): number | undefined {
  const t = Date.parse(iso);
  return Number.isSafeInteger(t) && t >= 0 ? t : undefined;
}

/** Reads one resource and returns the facts its conditions need (no bodies or comments). */
export async function readResource(api: GitHubApi, resource: ResourceIdentity, repositories?: RepositoryReads): Promise<GateFacts> {
  if (resource.host !== api.host) return { read_status: 'host_mismatch' };
  const coords = splitRepository(resource.repository);
  if (coords === null) return { read_status: 'identity_mismatch' };
  try {
    let read = repositories?.get(resource.repository);
    if (read === undefined) {
      read = api.get('/repos/{owner}/{repo}', coords, RepositorySchema, `read repository ${resource.repository}`);
      repositories?.set(resource.repository, read);
    }
    const repo = await read;
    if (repo.id !== resource.repository_id) return { read_status: 'identity_mismatch' };
    const number = Number(resource.number);
    if (resource.kind === 'issue') {
      const issue = await api.get('/repos/{owner}/{repo}/issues/{issue_number}', { ...coords, issue_number: number }, IssueSchema, `read issue ${resource.repository}#${resource.number}`);
      if (issue.pull_request !== undefined) return { read_status: 'type_mismatch' };
      if (issue.id !== resource.resource_id || issue.number !== number) return { read_status: 'identity_mismatch' };
      // Spec 7.16: the typed identity is re-read exactly on every read. A transferred Issue is
      // answered (after GitHub's 301) from its new repository, with the same id and possibly the
      // same number: it is another resource for this gate, never satisfaction.
      if (!sameRepository(issue.repository_url, repo.url ?? `/repos/${repo.full_name}`)) return { read_status: 'identity_mismatch' };
      return {
        read_status: 'ok',
        resource_state: issue.state,
        state_reason: issue.state_reason ?? null,
        ...withTime(issue.updated_at),
      };
    }
    const pull = await api.get('/repos/{owner}/{repo}/pulls/{pull_number}', { ...coords, pull_number: number }, PullSchema, `read pull request ${resource.repository}#${resource.number}`);
    if (pull.id !== resource.resource_id || pull.number !== number || pull.base.repo.id !== resource.repository_id) return { read_status: 'identity_mismatch' };
    return {
      read_status: 'ok',
      resource_state: pull.state,
      merged: pull.merged,
      merge_commit: pull.merged ? pull.merge_commit_sha : null,
      ...withTime(pull.updated_at),
    };
  } catch (e) {
    // A 404 on the Pulls endpoint for an existing Issue number is also a type mismatch,
    // but it is recorded as not_found: both are unknown and neither satisfies the gate.
    return { read_status: readStatusOf(e) };
  }
}

function sameRepository(a: string, b: string): boolean {
  const path = (u: string) => u.replace(/^[a-z]+:\/\/[^/]+/i, '').replace(/\/+$/, '').toLowerCase();
  return path(a) === path(b);
}

function withTime(iso: string): { source_updated_at?: number } {
  const t = epoch(iso);
  return t === undefined ? {} : { source_updated_at: t };
}
