/**
 * Issues of the fake GitHub (`GET /repos/{owner}/{repo}/issues/{issue_number}`), plus the
 * user and repository summaries that Issues, Pulls and Actions responses embed. As on
 * GitHub, the Issues endpoint also answers for a Pull Request number (with a
 * `pull_request` member), so a resolver must use the Pulls endpoint for merge status.
 * Resource ids are int64 and may exceed 2^53: bodies are written with lossless-json,
 * so such ids reach the client exactly (`FakeResponse.raw`).
 */
import { LosslessNumber, stringify } from 'lossless-json';
import { notFound, type FakeRequest, type FakeResponse, type FakeRoute } from './router.ts';
import { labelJson } from './issue-store.ts';
import { FAKE_USER, isoNow, type FakeGitHubState, type FakeRepository } from './state.ts';

export type IssueStateReason = 'completed' | 'not_planned' | 'reopened' | 'duplicate' | null;

export interface FakeIssue {
  number: number;
  /** int64 resource id, kept as decimal text. */
  id: string;
  title: string;
  state: 'open' | 'closed';
  state_reason: IssueStateReason;
  /** Set when this number is a Pull Request (see routes-pulls.ts). */
  pull: boolean;
  /** For a Pull Request number: when it merged (the Issues view echoes it). */
  mergedAt: string | null;
  updatedAt: string;
  closedAt: string | null;
  /** Markdown body (null: none). */
  body: string | null;
  /** Names of the repository labels on this Issue (routes-labels.ts). */
  labels: string[];
  /** Ids of its comments, in creation order (routes-labels.ts). */
  comments: string[];
  createdAt: string;
}

export interface FakeUser {
  login: string;
  /** int64 account id, decimal text. */
  id: string;
}

const issues = new WeakMap<FakeGitHubState, Map<string, FakeIssue>>();

function table(state: FakeGitHubState): Map<string, FakeIssue> {
  let t = issues.get(state);
  if (t === undefined) issues.set(state, (t = new Map()));
  return t;
}

function key(repo: FakeRepository, n: number): string {
  return `${repo.owner}/${repo.name}#${n}`.toLowerCase();
}

/** Seeds (or replaces) issue `number` of `repo`. */
export function seedIssue(state: FakeGitHubState, repo: FakeRepository, issue: Partial<FakeIssue> & { number: number; id: string }): FakeIssue {
  const now = isoNow();
  const full: FakeIssue = {
    title: `Issue ${issue.number}`, state: 'open', state_reason: null, pull: false, mergedAt: null, updatedAt: now, closedAt: null,
    body: null, labels: [], comments: [], createdAt: now, ...issue,
  };
  table(state).set(key(repo, issue.number), full);
  return full;
}

export function findIssue(state: FakeGitHubState, repo: FakeRepository, n: number): FakeIssue | undefined {
  return table(state).get(key(repo, n));
}

const moved = new WeakMap<FakeGitHubState, Map<string, FakeRepository>>();

/**
 * Transfers Issue `n` of `from` to `to` (same resource id and, as the scenario needs, the same
 * number there). As on GitHub, the old location answers `301 Moved Permanently` pointing at the
 * Issue's new location, which a client that follows redirects reads as a 200 of `to`'s Issue
 * (GitHub's Location names `/repositories/{id}/issues/{n}`; the fake uses the documented
 * `/repos/{owner}/{repo}/issues/{n}` form so the followed read is validated too).
 */
export function transferIssue(state: FakeGitHubState, from: FakeRepository, n: number, to: FakeRepository): FakeIssue {
  const issue = findIssue(state, from, n);
  if (issue === undefined) throw new Error(`no issue ${n} in ${from.owner}/${from.name}`);
  table(state).delete(key(from, n));
  table(state).set(key(to, n), issue);
  let m = moved.get(state);
  if (m === undefined) moved.set(state, (m = new Map()));
  m.set(key(from, n), to);
  return issue;
}

/** Deletes Issue `n` of `repo` (GitHub's `deleteIssue` mutation, an administrator's act): it then answers 404 and leaves every list. */
export function deleteIssue(state: FakeGitHubState, repo: FakeRepository, n: number): void {
  if (!table(state).delete(key(repo, n))) throw new Error(`no issue ${n} in ${repo.owner}/${repo.name}`);
}

/** An int64 id as a JSON number, exactly. */
export function int64(id: string | number): LosslessNumber {
  return new LosslessNumber(String(id));
}

/** A body written losslessly (ids above 2^53 stay exact). */
export function rawJson(status: number, body: unknown, headers?: Record<string, string>): FakeResponse {
  return { status, raw: stringify(body) ?? '', ...(headers === undefined ? {} : { headers }) };
}

export const DEFAULT_USER: FakeUser = { login: FAKE_USER.login, id: String(FAKE_USER.id) };

/** `simple-user`. */
export function userJson(req: FakeRequest, user: FakeUser = DEFAULT_USER): Record<string, unknown> {
  const u = `${req.baseUrl}/users/${user.login}`;
  return {
    login: user.login, id: int64(user.id), node_id: `U_${user.id}`, avatar_url: `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
    gravatar_id: '', url: u, html_url: `https://github.com/${user.login}`, followers_url: `${u}/followers`,
    following_url: `${u}/following{/other_user}`, gists_url: `${u}/gists{/gist_id}`, starred_url: `${u}/starred{/owner}{/repo}`,
    subscriptions_url: `${u}/subscriptions`, organizations_url: `${u}/orgs`, repos_url: `${u}/repos`,
    events_url: `${u}/events{/privacy}`, received_events_url: `${u}/received_events`, type: 'User', site_admin: false,
  };
}

/** `minimal-repository` (required members only). */
export function minimalRepositoryJson(req: FakeRequest, repo: FakeRepository): Record<string, unknown> {
  const full = `${repo.owner}/${repo.name}`;
  const api = `${req.baseUrl}/repos/${full}`;
  const t = (suffix: string) => `${api}/${suffix}`;
  return {
    id: int64(repo.id), node_id: `R_${repo.id}`, name: repo.name, full_name: full, owner: userJson(req, { login: repo.owner, id: String(FAKE_USER.id) }),
    private: true, html_url: `https://github.com/${full}`, description: null, fork: false, url: api,
    archive_url: t('{archive_format}{/ref}'), assignees_url: t('assignees{/user}'), blobs_url: t('git/blobs{/sha}'),
    branches_url: t('branches{/branch}'), collaborators_url: t('collaborators{/collaborator}'), comments_url: t('comments{/number}'),
    commits_url: t('commits{/sha}'), compare_url: t('compare/{base}...{head}'), contents_url: t('contents/{+path}'),
    contributors_url: t('contributors'), deployments_url: t('deployments'), downloads_url: t('downloads'), events_url: t('events'),
    forks_url: t('forks'), git_commits_url: t('git/commits{/sha}'), git_refs_url: t('git/refs{/sha}'), git_tags_url: t('git/tags{/sha}'),
    hooks_url: t('hooks'), issue_comment_url: t('issues/comments{/number}'), issue_events_url: t('issues/events{/number}'),
    issues_url: t('issues{/number}'), keys_url: t('keys{/key_id}'), labels_url: t('labels{/name}'), languages_url: t('languages'),
    merges_url: t('merges'), milestones_url: t('milestones{/number}'), notifications_url: t('notifications{?since,all,participating}'),
    pulls_url: t('pulls{/number}'), releases_url: t('releases{/id}'), stargazers_url: t('stargazers'), statuses_url: t('statuses/{sha}'),
    subscribers_url: t('subscribers'), subscription_url: t('subscription'), tags_url: t('tags'), teams_url: t('teams'), trees_url: t('git/trees{/sha}'),
  };
}

/** `repository` (what Pull Request `head.repo` / `base.repo` carry; required members only). */
export function repositoryJson(req: FakeRequest, repo: FakeRepository): Record<string, unknown> {
  const full = `${repo.owner}/${repo.name}`;
  return {
    ...minimalRepositoryJson(req, repo),
    clone_url: `https://github.com/${full}.git`, default_branch: repo.defaultBranch, forks: 0, forks_count: 0, git_url: `git://github.com/${full}.git`,
    has_downloads: true, has_issues: true, has_projects: true, has_wiki: false, has_pages: false, homepage: null, language: null,
    archived: false, disabled: false, mirror_url: null, open_issues: 0, open_issues_count: 0, license: null, pushed_at: repo.createdAt,
    size: 0, ssh_url: `git@github.com:${full}.git`, stargazers_count: 0, svn_url: `https://github.com/${full}`, watchers: 0, watchers_count: 0,
    created_at: repo.createdAt, updated_at: repo.createdAt,
  };
}

/** All Issues (and PR numbers) of `repo`, by number. */
export function repoIssues(state: FakeGitHubState, repo: FakeRepository): FakeIssue[] {
  const prefix = `${repo.owner}/${repo.name}#`.toLowerCase();
  return [...table(state).entries()].filter(([k]) => k.startsWith(prefix)).map(([, v]) => v).sort((a, b) => a.number - b.number);
}

export function issueJson(req: FakeRequest, state: FakeGitHubState, repo: FakeRepository, issue: FakeIssue): Record<string, unknown> {
  const api = `${req.baseUrl}/repos/${repo.owner}/${repo.name}`;
  const url = `${api}/issues/${issue.number}`;
  const html = `https://github.com/${repo.owner}/${repo.name}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`;
  return {
    id: int64(issue.id), node_id: `I_${issue.id}`, url, repository_url: api, labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`, events_url: `${url}/events`, html_url: html, number: issue.number, state: issue.state,
    state_reason: issue.state_reason, title: issue.title, body: issue.body, user: userJson(req),
    labels: issue.labels.map((name) => labelJson(req, state, repo, name)), assignee: null, assignees: [],
    milestone: null, locked: false, comments: issue.comments.length, closed_at: issue.closedAt, created_at: issue.createdAt, updated_at: issue.updatedAt,
    author_association: 'OWNER',
    ...(issue.pull ? {
      pull_request: { url: `${api}/pulls/${issue.number}`, html_url: html, diff_url: `${html}.diff`, patch_url: `${html}.patch`, merged_at: issue.mergedAt },
    } : {}),
  };
}

export const issueRoutes: FakeRoute[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues/{issue_number}',
    handle(req, state) {
      const repo = state.repo(req.params.owner!, req.params.repo!);
      const n = Number(req.params.issue_number);
      const issue = repo === undefined || !Number.isSafeInteger(n) ? undefined : findIssue(state, repo, n);
      const to = repo === undefined || issue !== undefined ? undefined : moved.get(state)?.get(key(repo, n));
      if (to !== undefined) {
        const location = `${req.baseUrl}/repos/${to.owner}/${to.name}/issues/${n}`;
        return rawJson(301, { message: 'Moved Permanently', url: location, documentation_url: 'https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects' }, { location });
      }
      if (repo === undefined || issue === undefined) return notFound();
      return rawJson(200, issueJson(req, state, repo, issue));
    },
  },
];
