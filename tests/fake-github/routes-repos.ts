/**
 * Repository metadata, the commits API (`GET /repos/{o}/{r}/commits/{ref}`, a branch
 * resolved to its immutable commit; `GET /repos/{o}/{r}/commits?sha&path`, the commits that
 * changed a file) and the contents API of the fake GitHub: enough
 * for a client to find the default branch, pin its tip and read files at that commit. As on GitHub,
 * files over 1 MiB come back with `encoding: "none"` and empty content (read
 * them through the blobs API).
 */
import type { TreeEntry } from './objects.ts';
import { notFound, uriPath, type FakeRequest, type FakeResponse, type FakeRoute } from './router.ts';
import { FAKE_USER, type FakeGitHubState, type FakeRepository } from './state.ts';
import { wrappedBase64 } from './routes-git.ts';

const CONTENTS_INLINE_LIMIT = 1024 * 1024;

function ownerJson(req: FakeRequest, login: string): Record<string, unknown> {
  const u = `${req.baseUrl}/users/${login}`;
  return {
    login, id: FAKE_USER.id, node_id: `U_${login}`, avatar_url: `https://avatars.githubusercontent.com/u/${FAKE_USER.id}?v=4`,
    gravatar_id: '', url: u, html_url: `https://github.com/${login}`, followers_url: `${u}/followers`,
    following_url: `${u}/following{/other_user}`, gists_url: `${u}/gists{/gist_id}`, starred_url: `${u}/starred{/owner}{/repo}`,
    subscriptions_url: `${u}/subscriptions`, organizations_url: `${u}/orgs`, repos_url: `${u}/repos`,
    events_url: `${u}/events{/privacy}`, received_events_url: `${u}/received_events`, type: 'User', site_admin: false,
  };
}

function repositoryJson(req: FakeRequest, repo: FakeRepository): Record<string, unknown> {
  const full = `${repo.owner}/${repo.name}`;
  const api = `${req.baseUrl}/repos/${full}`;
  const templated = (suffix: string) => `${api}/${suffix}`;
  return {
    id: repo.id, node_id: `R_${repo.id}`, name: repo.name, full_name: full, owner: ownerJson(req, repo.owner), private: true,
    html_url: `https://github.com/${full}`, description: null, fork: false, url: api,
    archive_url: templated('{archive_format}{/ref}'), assignees_url: templated('assignees{/user}'), blobs_url: templated('git/blobs{/sha}'),
    branches_url: templated('branches{/branch}'), collaborators_url: templated('collaborators{/collaborator}'),
    comments_url: templated('comments{/number}'), commits_url: templated('commits{/sha}'), compare_url: templated('compare/{base}...{head}'),
    contents_url: templated('contents/{+path}'), contributors_url: templated('contributors'), deployments_url: templated('deployments'),
    downloads_url: templated('downloads'), events_url: templated('events'), forks_url: templated('forks'),
    git_commits_url: templated('git/commits{/sha}'), git_refs_url: templated('git/refs{/sha}'), git_tags_url: templated('git/tags{/sha}'),
    git_url: `git://github.com/${full}.git`, hooks_url: templated('hooks'), issue_comment_url: templated('issues/comments{/number}'),
    issue_events_url: templated('issues/events{/number}'), issues_url: templated('issues{/number}'), keys_url: templated('keys{/key_id}'),
    labels_url: templated('labels{/name}'), languages_url: templated('languages'), merges_url: templated('merges'),
    milestones_url: templated('milestones{/number}'), notifications_url: templated('notifications{?since,all,participating}'),
    pulls_url: templated('pulls{/number}'), releases_url: templated('releases{/id}'), ssh_url: `git@github.com:${full}.git`,
    stargazers_url: templated('stargazers'), statuses_url: templated('statuses/{sha}'), subscribers_url: templated('subscribers'),
    subscription_url: templated('subscription'), tags_url: templated('tags'), teams_url: templated('teams'), trees_url: templated('git/trees{/sha}'),
    clone_url: `https://github.com/${full}.git`, mirror_url: null, svn_url: `https://github.com/${full}`, homepage: null, language: null,
    forks_count: 0, forks: 0, stargazers_count: 0, watchers_count: 0, watchers: 0, size: 0, default_branch: repo.defaultBranch,
    open_issues_count: 0, open_issues: 0, has_issues: true, has_projects: true, has_wiki: false, has_pages: false, has_discussions: false,
    archived: false, disabled: false, visibility: 'private', pushed_at: repo.createdAt, created_at: repo.createdAt, updated_at: repo.createdAt,
    license: null, network_count: 0, subscribers_count: 1,
  };
}

/** A branch name, tag name or commit id → commit id. */
function resolveCommitish(repo: FakeRepository, ref: string): string | undefined {
  return repo.refs.get(`refs/heads/${ref}`) ?? repo.refs.get(`refs/tags/${ref}`) ?? (repo.objects.commits.has(ref) ? ref : undefined);
}

function entryJson(req: FakeRequest, repo: FakeRepository, path: string, e: TreeEntry, ref: string): Record<string, unknown> {
  const api = `${req.baseUrl}/repos/${repo.owner}/${repo.name}`;
  const type = e.type === 'tree' ? 'dir' : e.type === 'commit' ? 'submodule' : e.mode === '120000' ? 'symlink' : 'file';
  const kind = e.type === 'tree' ? 'tree' : 'blob';
  const self = `${api}/contents/${uriPath(path)}?ref=${encodeURIComponent(ref)}`;
  const html = `https://github.com/${repo.owner}/${repo.name}/${kind}/${uriPath(ref)}/${uriPath(path)}`;
  const git = e.type === 'commit' ? null : `${api}/git/${kind}s/${e.sha}`;
  return {
    type, name: e.name, path, sha: e.sha, size: e.type === 'blob' ? repo.objects.blobs.get(e.sha)!.length : 0,
    url: self, html_url: html, git_url: git,
    download_url: type === 'file' ? `https://raw.githubusercontent.com/${repo.owner}/${repo.name}/${uriPath(ref)}/${uriPath(path)}` : null,
    _links: { self, git, html },
  };
}

function contents(req: FakeRequest, repo: FakeRepository): FakeResponse {
  const ref = req.query.get('ref') ?? repo.defaultBranch;
  const commit = resolveCommitish(repo, ref);
  if (commit === undefined) return notFound();
  const path = req.params.path!.replace(/\/+$/, '');
  const entry = repo.objects.lookup(repo.objects.commits.get(commit)!.tree, path);
  if (entry === null) return notFound();
  const base = entryJson(req, repo, path, entry, ref);
  if (entry.type === 'tree') {
    return { status: 200, body: repo.objects.trees.get(entry.sha)!.map((e) => entryJson(req, repo, `${path}/${e.name}`, e, ref)) };
  }
  if (entry.type === 'commit') return { status: 200, body: { ...base, submodule_git_url: `https://github.com/${repo.owner}/${entry.name}.git` } };
  const bytes = repo.objects.blobs.get(entry.sha)!;
  if (base.type === 'symlink') return { status: 200, body: { ...base, target: bytes.toString('utf8') } };
  const inline = bytes.length <= CONTENTS_INLINE_LIMIT;
  return { status: 200, body: { ...base, content: inline ? wrappedBase64(bytes) : '', encoding: inline ? 'base64' : 'none' } };
}

/** A commit as the commits API spells it (the `commit` schema, without `stats` and `files`). */
function commitBody(req: FakeRequest, repo: FakeRepository, sha: string): Record<string, unknown> {
  const c = repo.objects.commits.get(sha)!;
  const api = `${req.baseUrl}/repos/${repo.owner}/${repo.name}`;
  const html = `https://github.com/${repo.owner}/${repo.name}`;
  return {
    url: `${api}/commits/${sha}`, sha, node_id: `C_${sha}`, html_url: `${html}/commit/${sha}`, comments_url: `${api}/commits/${sha}/comments`,
    commit: {
      url: `${api}/git/commits/${sha}`, author: c.author, committer: c.committer, message: c.message, comment_count: 0,
      tree: { sha: c.tree, url: `${api}/git/trees/${c.tree}` },
      verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
    },
    author: null, committer: null,
    parents: c.parents.map((p) => ({ sha: p, url: `${api}/commits/${p}`, html_url: `${html}/commit/${p}` })),
  };
}

/** `GET /repos/{o}/{r}/commits/{ref}` (repos/get-commit): the commit a branch, tag or SHA names. Files are not listed. */
function commitJson(req: FakeRequest, repo: FakeRepository, ref: string): FakeResponse {
  if (repo.refs.size === 0) return { status: 409, body: { message: 'Git Repository is empty.', documentation_url: 'https://docs.github.com/rest/commits/commits#get-a-commit', status: '409' } };
  const sha = resolveCommitish(repo, ref);
  if (sha === undefined) return { status: 422, body: { message: `No commit found for SHA: ${ref}`, documentation_url: 'https://docs.github.com/rest/commits/commits#get-a-commit', status: '422' } };
  return { status: 200, body: { ...commitBody(req, repo, sha), stats: { additions: 0, deletions: 0, total: 0 }, files: [] } };
}

/**
 * The commits reachable from `head` that changed `path` (all of them without a path), newest
 * committer date first, with git's default history simplification, as `git log -- path` and
 * GitHub's commits list walk it: a commit whose entry at `path` equals a parent's is not listed,
 * and of a merge only the first such parent is followed.
 */
function pathHistory(repo: FakeRepository, head: string, path: string | null): string[] {
  const { objects } = repo;
  const entryAt = (sha: string): string => {
    const e = objects.lookup(objects.commits.get(sha)!.tree, path!);
    return e === null ? '' : `${e.mode} ${e.sha}`;
  };
  const listed: string[] = [];
  const seen = new Set<string>([head]);
  const pending = [head];
  while (pending.length > 0) {
    // Newest committer date first (ISO dates of whole seconds compare as strings); equal dates in
    // the order they were queued, as git's date-ordered queue takes them.
    pending.sort((a, b) => objects.commits.get(b)!.committer.date.localeCompare(objects.commits.get(a)!.committer.date));
    const sha = pending.shift()!;
    const { parents } = objects.commits.get(sha)!;
    let follow = parents;
    if (path === null) listed.push(sha);
    else {
      const mine = entryAt(sha);
      const same = parents.find((p) => entryAt(p) === mine);
      if (same !== undefined) follow = [same];
      else if (parents.length > 0 || mine !== '') listed.push(sha);
    }
    for (const p of follow) {
      if (seen.has(p)) continue;
      seen.add(p);
      pending.push(p);
    }
  }
  return listed;
}

/** `GET /repos/{o}/{r}/commits` (repos/list-commits): `sha` (default branch when absent), `path`, `per_page`, `page`. */
function listCommits(req: FakeRequest, repo: FakeRepository): FakeResponse {
  const docs = 'https://docs.github.com/rest/commits/commits#list-commits';
  if (repo.refs.size === 0) return { status: 409, body: { message: 'Git Repository is empty.', documentation_url: docs, status: '409' } };
  const ref = req.query.get('sha') ?? repo.defaultBranch;
  const head = resolveCommitish(repo, ref);
  if (head === undefined) return { status: 404, body: { message: `No commit found for SHA: ${ref}`, documentation_url: docs, status: '404' } };
  const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
  const path = req.query.get('path');
  const all = pathHistory(repo, head, path === null || path === '' ? null : path.replace(/^\/+|\/+$/g, ''));
  return { status: 200, body: all.slice((page - 1) * perPage, page * perPage).map((sha) => commitBody(req, repo, sha)) };
}

export const repoRoutes: FakeRoute[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}',
    handle: (req, state: FakeGitHubState) => {
      const repo = state.repo(req.params.owner!, req.params.repo!);
      return repo === undefined ? notFound() : { status: 200, body: repositoryJson(req, repo) };
    },
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/commits',
    handle: (req, state: FakeGitHubState) => {
      const repo = state.repo(req.params.owner!, req.params.repo!);
      return repo === undefined ? notFound() : listCommits(req, repo);
    },
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/commits/{ref}',
    handle: (req, state: FakeGitHubState) => {
      const repo = state.repo(req.params.owner!, req.params.repo!);
      return repo === undefined ? notFound() : commitJson(req, repo, req.params.ref!);
    },
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/contents/{path}',
    handle: (req, state: FakeGitHubState) => {
      const repo = state.repo(req.params.owner!, req.params.repo!);
      return repo === undefined ? notFound() : contents(req, repo);
    },
  },
];
