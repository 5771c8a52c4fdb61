/**
 * Pull Requests of the fake GitHub (`GET /repos/{owner}/{repo}/pulls/{pull_number}`). A
 * seeded PR also exists as an Issue of the same number (GitHub shares the namespace), so
 * the Issues endpoint answers for it too; only this endpoint reports `merged`. Asking the
 * Pulls endpoint for a plain Issue number is a 404, as on GitHub.
 */
import { notFound, type FakeRequest, type FakeRoute } from './router.ts';
import { isoNow, type FakeGitHubState, type FakeRepository } from './state.ts';
import { int64, rawJson, repositoryJson, seedIssue, userJson } from './routes-issues.ts';

export interface FakePull {
  number: number;
  /** int64 Pull Request id (differs from the Issue id of the same number). */
  id: string;
  /** int64 id of the Issue view of this number. */
  issueId: string;
  title: string;
  state: 'open' | 'closed';
  merged: boolean;
  mergeCommitSha: string | null;
  headSha: string;
  baseRef: string;
  updatedAt: string;
}

const pulls = new WeakMap<FakeGitHubState, Map<string, FakePull>>();

function table(state: FakeGitHubState): Map<string, FakePull> {
  let t = pulls.get(state);
  if (t === undefined) pulls.set(state, (t = new Map()));
  return t;
}

function key(repo: FakeRepository, n: number): string {
  return `${repo.owner}/${repo.name}#${n}`.toLowerCase();
}

/**
 * Seeds (or replaces) PR `number`. `merged: true` closes it with a merge commit;
 * `state: 'closed'` without `merged` is a PR closed unmerged.
 */
export function seedPull(state: FakeGitHubState, repo: FakeRepository, pull: Partial<FakePull> & { number: number; id: string; issueId: string }): FakePull {
  const now = isoNow();
  const merged = pull.merged ?? false;
  const full: FakePull = {
    title: `PR ${pull.number}`,
    state: merged ? 'closed' : 'open',
    mergeCommitSha: merged ? 'c'.repeat(40) : null,
    headSha: 'a'.repeat(40),
    baseRef: repo.defaultBranch,
    updatedAt: now,
    ...pull,
    merged,
  };
  table(state).set(key(repo, pull.number), full);
  seedIssue(state, repo, {
    number: full.number, id: full.issueId, title: full.title, state: full.state, pull: true,
    mergedAt: merged ? now : null, closedAt: full.state === 'closed' ? now : null, updatedAt: now,
  });
  return full;
}

function link(href: string): { href: string } {
  return { href };
}

function pullJson(req: FakeRequest, repo: FakeRepository, pull: FakePull): Record<string, unknown> {
  const api = `${req.baseUrl}/repos/${repo.owner}/${repo.name}`;
  const url = `${api}/pulls/${pull.number}`;
  const html = `https://github.com/${repo.owner}/${repo.name}/pull/${pull.number}`;
  const issueUrl = `${api}/issues/${pull.number}`;
  const side = (ref: string, sha: string) => ({ label: `${repo.owner}:${ref}`, ref, repo: repositoryJson(req, repo), sha, user: userJson(req) });
  const closedAt = pull.state === 'closed' ? pull.updatedAt : null;
  return {
    url, id: int64(pull.id), node_id: `PR_${pull.id}`, html_url: html, diff_url: `${html}.diff`, patch_url: `${html}.patch`, issue_url: issueUrl,
    commits_url: `${url}/commits`, review_comments_url: `${url}/comments`, review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${issueUrl}/comments`, statuses_url: `${api}/statuses/${pull.headSha}`, number: pull.number, state: pull.state,
    locked: false, title: pull.title, user: userJson(req), body: null, labels: [], milestone: null, created_at: pull.updatedAt,
    updated_at: pull.updatedAt, closed_at: closedAt, merged_at: pull.merged ? pull.updatedAt : null, merge_commit_sha: pull.mergeCommitSha,
    assignee: null, assignees: [], requested_reviewers: [], requested_teams: [],
    head: side(`topic-${pull.number}`, pull.headSha), base: side(pull.baseRef, 'b'.repeat(40)),
    _links: {
      self: link(url), html: link(html), issue: link(issueUrl), comments: link(`${issueUrl}/comments`), review_comments: link(`${url}/comments`),
      review_comment: link(`${api}/pulls/comments{/number}`), commits: link(`${url}/commits`), statuses: link(`${api}/statuses/${pull.headSha}`),
    },
    author_association: 'OWNER', auto_merge: null, draft: false, merged: pull.merged, mergeable: pull.state === 'open' ? true : null,
    rebaseable: null, mergeable_state: pull.merged ? 'unknown' : 'clean', merged_by: pull.merged ? userJson(req) : null, comments: 0,
    review_comments: 0, maintainer_can_modify: false, commits: 1, additions: 1, deletions: 0, changed_files: 1,
  };
}

export const pullRoutes: FakeRoute[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/pulls/{pull_number}',
    handle(req, state) {
      const repo = state.repo(req.params.owner!, req.params.repo!);
      const n = Number(req.params.pull_number);
      const pull = repo === undefined || !Number.isSafeInteger(n) ? undefined : table(state).get(key(repo, n));
      if (repo === undefined || pull === undefined) return notFound();
      return rawJson(200, pullJson(req, repo, pull));
    },
  },
];
