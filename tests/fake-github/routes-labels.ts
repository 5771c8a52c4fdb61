/**
 * Issue writes of the fake GitHub, for the backing-Issue projector: repository labels
 * (list, create, delete), the Issues list (`since`, `state`, `labels`, pages) and creation,
 * an Issue's labels (add, remove) and comments (list, create, update). Every response is
 * validated against `@octokit/openapi` by the server, like every other route. Any label
 * or comment change moves the Issue's `updated_at`, as on GitHub.
 */
import { findLabel, labelJson, nextFakeId, putLabel, repoComments, repoLabels, type FakeComment } from './issue-store.ts';
import { notFound, unprocessable, type FakeRequest, type FakeResponse, type FakeRoute } from './router.ts';
import { findIssue, int64, issueJson, rawJson, repoIssues, seedIssue, userJson, type FakeIssue } from './routes-issues.ts';
import { isoNow, type FakeGitHubState, type FakeRepository } from './state.ts';

function repoOf(req: FakeRequest, state: FakeGitHubState): FakeRepository | undefined {
  return state.repo(req.params.owner!, req.params.repo!);
}

function issueOf(req: FakeRequest, state: FakeGitHubState): { repo: FakeRepository; issue: FakeIssue } | undefined {
  const repo = repoOf(req, state);
  const n = Number(req.params.issue_number);
  const issue = repo === undefined || !Number.isSafeInteger(n) ? undefined : findIssue(state, repo, n);
  return repo === undefined || issue === undefined ? undefined : { repo, issue };
}

function page(req: FakeRequest): { perPage: number; page: number } {
  const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page') ?? 30)));
  return { perPage, page: Math.max(1, Number(req.query.get('page') ?? 1)) };
}

function body(req: FakeRequest): Record<string, unknown> {
  return (req.body ?? {}) as Record<string, unknown>;
}

/** A later `updated_at` than before, even within the same second (the fake's clock is whole seconds). */
function touch(issue: FakeIssue): void {
  const now = isoNow();
  issue.updatedAt = now > issue.updatedAt ? now : new Date(Date.parse(issue.updatedAt) + 1000).toISOString().replace('.000Z', 'Z');
}

function commentJson(req: FakeRequest, repo: FakeRepository, c: FakeComment): Record<string, unknown> {
  const api = `${req.baseUrl}/repos/${repo.owner}/${repo.name}`;
  return {
    id: int64(c.id), node_id: `IC_${c.id}`, url: `${api}/issues/comments/${c.id}`, body: c.body,
    html_url: `https://github.com/${repo.owner}/${repo.name}/issues/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${api}/issues/${c.issueNumber}`, user: userJson(req), created_at: c.createdAt, updated_at: c.updatedAt,
    author_association: 'OWNER',
  };
}

function names(value: unknown): string[] | null {
  if (!Array.isArray(value)) return null;
  const out: string[] = [];
  for (const v of value) {
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string') out.push((v as { name: string }).name);
    else return null;
  }
  return out;
}

/** GitHub creates a label named on an Issue when the repository lacks it (default colour). */
function attach(state: FakeGitHubState, repo: FakeRepository, issue: FakeIssue, labels: string[]): void {
  for (const name of labels) {
    const label = findLabel(state, repo, name) ?? putLabel(state, repo, name);
    if (!issue.labels.some((l) => l.toLowerCase() === label.name.toLowerCase())) issue.labels.push(label.name);
  }
}

export const labelRoutes: FakeRoute[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/labels',
    handle(req, state) {
      const repo = repoOf(req, state);
      if (repo === undefined) return notFound();
      const { perPage, page: p } = page(req);
      const all = [...repoLabels(state, repo).values()].sort((a, b) => Number(a.id) - Number(b.id));
      return { status: 200, body: all.slice((p - 1) * perPage, p * perPage).map((l) => labelJson(req, state, repo, l.name)) };
    },
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/labels',
    handle(req, state) {
      const repo = repoOf(req, state);
      if (repo === undefined) return notFound();
      const b = body(req);
      if (typeof b.name !== 'string' || b.name.trim() === '' || [...b.name].length > 50) return unprocessable('Validation Failed');
      if (b.color !== undefined && (typeof b.color !== 'string' || !/^[0-9a-fA-F]{6}$/.test(b.color))) return unprocessable('Validation Failed');
      if (findLabel(state, repo, b.name) !== undefined) return unprocessable('Validation Failed: already_exists');
      putLabel(state, repo, b.name, (b.color as string | undefined) ?? 'ededed', typeof b.description === 'string' ? b.description : null);
      return { status: 201, body: labelJson(req, state, repo, b.name) };
    },
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/labels/{name}',
    handle(req, state) {
      const repo = repoOf(req, state);
      const label = repo === undefined ? undefined : findLabel(state, repo, req.params.name!);
      return repo === undefined || label === undefined ? notFound() : { status: 200, body: labelJson(req, state, repo, label.name) };
    },
  },
  {
    method: 'DELETE',
    path: '/repos/{owner}/{repo}/labels/{name}',
    handle(req, state) {
      const repo = repoOf(req, state);
      const label = repo === undefined ? undefined : findLabel(state, repo, req.params.name!);
      if (repo === undefined || label === undefined) return notFound();
      repoLabels(state, repo).delete(label.name.toLowerCase());
      for (const issue of repoIssues(state, repo)) {
        const before = issue.labels.length;
        issue.labels = issue.labels.filter((l) => l.toLowerCase() !== label.name.toLowerCase());
        if (issue.labels.length !== before) touch(issue);
      }
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues',
    handle(req, state) {
      const repo = repoOf(req, state);
      if (repo === undefined) return notFound();
      const want = req.query.get('state') ?? 'open';
      const since = req.query.get('since');
      const labelFilter = req.query.get('labels')?.split(',').map((l) => l.trim().toLowerCase()).filter((l) => l !== '') ?? [];
      const asc = req.query.get('direction') === 'asc';
      let list = repoIssues(state, repo).filter((i) => (want === 'all' || i.state === want)
        && (since === null || Date.parse(i.updatedAt) >= Date.parse(since))
        && labelFilter.every((l) => i.labels.some((x) => x.toLowerCase() === l)));
      list = list.sort((a, b) => (req.query.get('sort') === 'updated' ? a.updatedAt.localeCompare(b.updatedAt) || a.number - b.number : a.number - b.number) * (asc ? 1 : -1));
      const { perPage, page: p } = page(req);
      return rawJson(200, list.slice((p - 1) * perPage, p * perPage).map((i) => issueJson(req, state, repo, i)));
    },
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues',
    handle(req, state) {
      const repo = repoOf(req, state);
      if (repo === undefined) return notFound();
      const b = body(req);
      if (typeof b.title !== 'string' || b.title === '') return unprocessable('Validation Failed');
      const labels = b.labels === undefined ? [] : names(b.labels);
      if (labels === null) return unprocessable('Validation Failed');
      const number = Math.max(0, ...repoIssues(state, repo).map((i) => i.number)) + 1;
      const issue = seedIssue(state, repo, { number, id: nextFakeId(state), title: b.title, body: typeof b.body === 'string' ? b.body : null });
      attach(state, repo, issue, labels);
      return rawJson(201, issueJson(req, state, repo, issue), { location: `${req.baseUrl}/repos/${repo.owner}/${repo.name}/issues/${number}` });
    },
  },
  {
    // Update an Issue: state (with state_reason), title, body. Closing sets closed_at; reopening clears it.
    method: 'PATCH',
    path: '/repos/{owner}/{repo}/issues/{issue_number}',
    handle(req, state) {
      const found = issueOf(req, state);
      if (found === undefined) return notFound();
      const b = body(req);
      const { issue } = found;
      if (b.state !== undefined && b.state !== 'open' && b.state !== 'closed') return unprocessable('Validation Failed');
      if (b.state_reason !== undefined && b.state_reason !== null && !['completed', 'not_planned', 'reopened', 'duplicate'].includes(String(b.state_reason))) return unprocessable('Validation Failed');
      if (typeof b.title === 'string') issue.title = b.title;
      if (typeof b.body === 'string') issue.body = b.body;
      if (b.state === 'closed' && issue.state !== 'closed') {
        issue.state = 'closed';
        issue.closedAt = isoNow();
        issue.state_reason = (b.state_reason as FakeIssue['state_reason'] | undefined) ?? 'completed';
      } else if (b.state === 'open' && issue.state !== 'open') {
        issue.state = 'open';
        issue.closedAt = null;
        issue.state_reason = 'reopened';
      }
      touch(issue);
      return rawJson(200, issueJson(req, state, found.repo, issue));
    },
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/labels',
    handle(req, state) {
      const found = issueOf(req, state);
      if (found === undefined) return notFound();
      const b = req.body as unknown;
      const labels = names(Array.isArray(b) ? b : (b as { labels?: unknown } | undefined)?.labels);
      if (labels === null || labels.length === 0) return unprocessable('Validation Failed');
      attach(state, found.repo, found.issue, labels);
      touch(found.issue);
      return { status: 200, body: found.issue.labels.map((n) => labelJson(req, state, found.repo, n)) };
    },
  },
  {
    method: 'DELETE',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
    handle(req, state) {
      const found = issueOf(req, state);
      if (found === undefined) return notFound();
      const name = req.params.name!.toLowerCase();
      if (!found.issue.labels.some((l) => l.toLowerCase() === name)) return { status: 404, body: { message: 'Label does not exist', documentation_url: 'https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue', status: '404' } };
      found.issue.labels = found.issue.labels.filter((l) => l.toLowerCase() !== name);
      touch(found.issue);
      return { status: 200, body: found.issue.labels.map((n) => labelJson(req, state, found.repo, n)) };
    },
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    handle(req, state) {
      const found = issueOf(req, state);
      if (found === undefined) return notFound();
      const comments = repoComments(state, found.repo);
      const { perPage, page: p } = page(req);
      const list = found.issue.comments.map((id) => comments.get(id)).filter((c): c is FakeComment => c !== undefined);
      return rawJson(200, list.slice((p - 1) * perPage, p * perPage).map((c) => commentJson(req, found.repo, c)));
    },
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    handle(req, state) {
      const found = issueOf(req, state);
      if (found === undefined) return notFound();
      const b = body(req);
      if (typeof b.body !== 'string' || b.body === '') return unprocessable('Validation Failed');
      const now = isoNow();
      const c: FakeComment = { id: nextFakeId(state), issueNumber: found.issue.number, body: b.body, createdAt: now, updatedAt: now };
      repoComments(state, found.repo).set(c.id, c);
      found.issue.comments.push(c.id);
      touch(found.issue);
      return rawJson(201, commentJson(req, found.repo, c), { location: `${req.baseUrl}/repos/${found.repo.owner}/${found.repo.name}/issues/comments/${c.id}` });
    },
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    handle(req, state) {
      const repo = repoOf(req, state);
      const c = repo === undefined ? undefined : repoComments(state, repo).get(req.params.comment_id!);
      if (repo === undefined || c === undefined) return notFound();
      return rawJson(200, commentJson(req, repo, c));
    },
  },
  {
    method: 'PATCH',
    path: '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    handle(req, state) {
      const repo = repoOf(req, state);
      const c = repo === undefined ? undefined : repoComments(state, repo).get(req.params.comment_id!);
      if (repo === undefined || c === undefined) return notFound();
      const b = body(req);
      if (typeof b.body !== 'string' || b.body === '') return unprocessable('Validation Failed');
      c.body = b.body;
      c.updatedAt = isoNow();
      return rawJson(200, commentJson(req, repo, c));
    },
  },
  {
    method: 'DELETE',
    path: '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    handle(req, state) {
      const repo = repoOf(req, state);
      const c = repo === undefined ? undefined : repoComments(state, repo).get(req.params.comment_id!);
      if (repo === undefined || c === undefined) return notFound();
      repoComments(state, repo).delete(c.id);
      const issue = findIssue(state, repo, c.issueNumber);
      if (issue !== undefined) issue.comments = issue.comments.filter((id) => id !== c.id);
      return { status: 204 };
    },
  },
];

/** Test inspection: an Issue's comment bodies, in order. */
export function commentBodies(state: FakeGitHubState, repo: FakeRepository, number: number): string[] {
  const issue = findIssue(state, repo, number);
  const comments = repoComments(state, repo);
  return (issue?.comments ?? []).map((id) => comments.get(id)?.body ?? '');
}

export type { FakeResponse };
