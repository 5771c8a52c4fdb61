/**
 * The Issues REST calls of the backing-Issue projector: labels, the change feed, Issues and
 * comments. Reads are retried by Octokit's retry plugin (idempotent); every mutation is sent
 * with `retries: 0`, so a timeout, a dropped connection or a 5xx answer is never re-sent: it
 * is `uncertain`. Only a proven pre-execution rate-limit rejection is retried, by the
 * throttling plugin (as the ledger stores do). Writes are spaced by the throttling plugin
 * (`writeIntervalMs`, GitHub's guidance of one second by default) and, once a rate limit is
 * exhausted, `stopped` refuses every further write of the run.
 */
import { z } from 'zod';
import { ProtocolError } from '../../engine/errors.ts';
import type { ResourceIdentity } from '../../engine/state/state.ts';
import type { FairwayOctokit } from '../store/github-client.ts';
import { githubFailure, isRequestError, neverSent } from '../store/github-errors.ts';
import { storeTimeouts, type RequestTimeouts } from '../store/github-timeouts.ts';
import { GitHubId, GitHubInt, parseGitHubJson, validate } from '../github/json.ts';

export interface IssuesClientOptions {
  token: string;
  baseUrl?: string;
  host?: string;
  writeIntervalMs?: number;
  retryBaseMs?: number;
  retries?: number;
  timeouts?: Partial<RequestTimeouts>;
}

const Label = z.object({ name: z.string() });
const LabelList = z.array(Label);
const FeedIssue = z.object({
  id: GitHubId,
  number: GitHubInt,
  state: z.enum(['open', 'closed']),
  labels: z.array(z.union([z.string(), z.object({ name: z.string().optional() })])),
  repository_url: z.string(),
  updated_at: z.string(),
  pull_request: z.object({}).passthrough().optional(),
});
export type FeedIssue = { id: string; number: number; state: 'open' | 'closed'; labels: string[]; repositoryUrl: string; updatedAt: string };
const Repository = z.object({ id: GitHubId, full_name: z.string() });
const Comment = z.object({ id: GitHubId });

export type WriteOutcome<T> =
  | { ok: true; value: T }
  /** GitHub definitively refused before executing (4xx), or the request never left. */
  | { ok: false; kind: 'rejected'; status: number; reason: string; rateLimited: boolean; message?: string }
  /** It may or may not have happened. */
  | { ok: false; kind: 'uncertain'; reason: string }
  /** Not sent: this run's writes stopped after an exhausted rate limit. */
  | { ok: false; kind: 'stopped'; reason: string };

export interface RequestCounts {
  reads: number;
  writes: number;
}

function split(repository: string): { owner: string; repo: string } {
  const [owner, repo] = repository.split('/') as [string, string];
  return { owner, repo };
}

export class IssuesClient {
  readonly host: string;
  readonly counts: RequestCounts = { reads: 0, writes: 0 };
  /** Set once a rate limit is exhausted: no further writes this run. */
  stopped: string | null = null;
  private readonly options: IssuesClientOptions;
  private readonly timeouts: RequestTimeouts;
  private client: Promise<FairwayOctokit> | null = null;

  constructor(options: IssuesClientOptions) {
    if (options.token === '') throw new ProtocolError('github_token_missing', 'backing-Issue projection needs a GitHub token with issues: write', {}, { usage: true });
    this.options = options;
    this.timeouts = storeTimeouts(options.timeouts ?? {});
    this.host = options.host ?? 'github.com';
  }

  /** The Octokit client, loaded and created on the first request (a command's --help never loads it). */
  octokit(): Promise<FairwayOctokit> {
    const { options } = this;
    this.client ??= import('../store/github-client.ts').then(({ createOctokit }) => {
      const octokit = createOctokit({
        token: options.token,
        timeouts: this.timeouts,
        ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl }),
        ...(options.writeIntervalMs !== undefined && { writeIntervalMs: options.writeIntervalMs }),
        ...(options.retryBaseMs !== undefined && { retryBaseMs: options.retryBaseMs }),
        ...(options.retries !== undefined && { retries: options.retries }),
      });
      // Count every request actually sent (retries included).
      octokit.hook.before('request', (o) => {
        if ((o.method ?? 'GET').toUpperCase() === 'GET') this.counts.reads++;
        else this.counts.writes++;
      });
      return octokit;
    });
    return this.client;
  }

  private async read<S extends z.ZodType>(route: string, params: Record<string, string | number>, schema: S, what: string): Promise<{ value: z.output<S>; headers: Record<string, string | number | undefined> }> {
    let text: string;
    let headers: Record<string, string | number | undefined>;
    const octokit = await this.octokit();
    try {
      const res = await octokit.request(`GET ${route}`, { ...params, request: { parseSuccessResponseBody: false } });
      text = await new Response(res.data as ReadableStream | null).text();
      headers = res.headers as Record<string, string | number | undefined>;
    } catch (e) {
      throw githubFailure(what, e, 'GitHub Issues');
    }
    return { value: validate(schema, parseGitHubJson(text, what), what), headers };
  }

  private async write<S extends z.ZodType | null>(method: 'POST' | 'PATCH' | 'DELETE', route: string, params: Record<string, unknown>, schema: S, what: string): Promise<WriteOutcome<S extends z.ZodType ? z.output<S> : null>> {
    if (this.stopped !== null) return { ok: false, kind: 'stopped', reason: this.stopped };
    let text: string;
    const octokit = await this.octokit();
    try {
      const res = await octokit.request(`${method} ${route}`, { ...params, request: { retries: 0, parseSuccessResponseBody: false } });
      text = await new Response(res.data as ReadableStream | null).text();
    } catch (e) {
      if (isRequestError(e) && e.response !== undefined && e.status >= 400 && e.status < 500) {
        const failure = githubFailure(what, e, 'GitHub Issues', true);
        const rateLimited = failure.code === 'github_rate_limited';
        if (rateLimited) this.stopped = `rate limit exhausted while trying to ${what}`;
        const message = failure.details?.github_message;
        return { ok: false, kind: 'rejected', status: e.status, reason: failure.code, rateLimited, ...(typeof message === 'string' ? { message } : {}) };
      }
      if (neverSent(e)) return { ok: false, kind: 'rejected', status: 0, reason: 'never_sent', rateLimited: false };
      return { ok: false, kind: 'uncertain', reason: isRequestError(e) && e.response !== undefined ? `http_${e.status}` : 'no_response' };
    }
    if (schema === null) return { ok: true, value: null as never };
    try {
      return { ok: true, value: validate(schema, parseGitHubJson(text, what), what) as never };
    } catch {
      // Accepted, but the answer cannot be read: the write happened, its receipt is unknown.
      return { ok: false, kind: 'uncertain', reason: 'response_invalid' };
    }
  }

  async repositoryId(repository: string): Promise<string> {
    return (await this.read('/repos/{owner}/{repo}', split(repository), Repository, `read repository ${repository}`)).value.id;
  }

  /** The repository's label names (up to 300; `complete` false beyond). */
  async labels(repository: string): Promise<{ names: string[]; complete: boolean; serverTime: string | null }> {
    const names: string[] = [];
    let serverTime: string | null = null;
    for (let page = 1; page <= 3; page++) {
      const { value, headers } = await this.read('/repos/{owner}/{repo}/labels', { ...split(repository), per_page: 100, page }, LabelList, `list labels of ${repository}`);
      if (page === 1) serverTime = typeof headers.date === 'string' ? headers.date : null;
      names.push(...value.map((l) => l.name));
      if (value.length < 100) return { names, complete: true, serverTime };
    }
    return { names, complete: false, serverTime };
  }

  /** Whether the repository has label `name` (GitHub matches names case-insensitively). */
  async hasLabel(repository: string, name: string): Promise<boolean> {
    try {
      await this.read('/repos/{owner}/{repo}/labels/{name}', { ...split(repository), name }, Label, `read label ${name} of ${repository}`);
      return true;
    } catch (e) {
      if (e instanceof ProtocolError && e.code === 'github_not_found') return false;
      throw e;
    }
  }

  createLabel(repository: string, name: string, color: string, description: string): Promise<WriteOutcome<null>> {
    return this.write('POST', '/repos/{owner}/{repo}/labels', { ...split(repository), name, color, description }, null, `create label ${name}`);
  }

  /**
   * Issues (and pull requests) of the repository updated at or after `since`, at most
   * `maxPages` pages; `complete` false when more remain. `serverTime` is GitHub's `Date`.
   */
  async feed(repository: string, since: string, maxPages = 3): Promise<{ issues: FeedIssue[]; complete: boolean; serverTime: string | null }> {
    const issues: FeedIssue[] = [];
    let serverTime: string | null = null;
    for (let page = 1; page <= maxPages; page++) {
      const { value, headers } = await this.read('/repos/{owner}/{repo}/issues', { ...split(repository), state: 'all', since, sort: 'updated', direction: 'asc', per_page: 100, page }, z.array(FeedIssue), `list changed issues of ${repository}`);
      if (page === 1) serverTime = typeof headers.date === 'string' ? headers.date : null;
      issues.push(...value.map((i) => ({ id: i.id, number: i.number, state: i.state, repositoryUrl: i.repository_url, updatedAt: i.updated_at, labels: i.labels.flatMap((l) => (typeof l === 'string' ? [l] : l.name === undefined ? [] : [l.name])) })));
      if (value.length < 100) return { issues, complete: true, serverTime };
    }
    return { issues, complete: false, serverTime };
  }

  /** One Issue's labels and state; null when it is gone (404/410) or is not this resource. */
  async issue(resource: ResourceIdentity): Promise<FeedIssue | null> {
    try {
      const { value } = await this.read('/repos/{owner}/{repo}/issues/{issue_number}', { ...split(resource.repository), issue_number: Number(resource.number) }, FeedIssue, `read issue ${resource.repository}#${resource.number}`);
      // Not this resource, or a pull request (the Issues endpoint answers for both): not this binding.
      if (value.id !== resource.resource_id || value.pull_request !== undefined) return null;
      return { id: value.id, number: value.number, state: value.state, repositoryUrl: value.repository_url, updatedAt: value.updated_at, labels: value.labels.flatMap((l) => (typeof l === 'string' ? [l] : l.name === undefined ? [] : [l.name])) };
    } catch (e) {
      if (e instanceof ProtocolError && e.code === 'github_not_found') return null;
      const status = (e as ProtocolError).details?.status;
      if (status === 410) return null;
      throw e;
    }
  }

  /** Issue `number` of `repository` as GitHub shows it now (operator resolution); null when absent. */
  async issueByNumber(repository: string, number: number): Promise<(FeedIssue & { pull: boolean }) | null> {
    try {
      const { value } = await this.read('/repos/{owner}/{repo}/issues/{issue_number}', { ...split(repository), issue_number: number }, FeedIssue, `read issue ${repository}#${number}`);
      return { id: value.id, number: value.number, state: value.state, repositoryUrl: value.repository_url, updatedAt: value.updated_at, pull: value.pull_request !== undefined, labels: value.labels.flatMap((l) => (typeof l === 'string' ? [l] : l.name === undefined ? [] : [l.name])) };
    } catch (e) {
      if (e instanceof ProtocolError && e.code === 'github_not_found') return null;
      throw e;
    }
  }

  /** A comment's id and the API URL of its Issue; null when absent. */
  async comment(repository: string, commentId: string): Promise<{ id: string; issueUrl: string } | null> {
    try {
      const { value } = await this.read('/repos/{owner}/{repo}/issues/comments/{comment_id}', { ...split(repository), comment_id: commentId }, z.object({ id: GitHubId, issue_url: z.string() }), `read comment ${commentId}`);
      return { id: value.id, issueUrl: value.issue_url };
    } catch (e) {
      if (e instanceof ProtocolError && e.code === 'github_not_found') return null;
      throw e;
    }
  }

  createIssue(repository: string, input: { title: string; body: string; labels: string[] }): Promise<WriteOutcome<{ id: string; number: number }>> {
    return this.write('POST', '/repos/{owner}/{repo}/issues', { ...split(repository), ...input }, z.object({ id: GitHubId, number: GitHubInt }), `create an issue in ${repository}`);
  }

  addLabels(resource: ResourceIdentity, labels: string[]): Promise<WriteOutcome<null>> {
    return this.write('POST', '/repos/{owner}/{repo}/issues/{issue_number}/labels', { ...split(resource.repository), issue_number: Number(resource.number), labels }, null, `label issue #${resource.number}`);
  }

  async removeLabel(resource: ResourceIdentity, name: string): Promise<WriteOutcome<null>> {
    const out = await this.write('DELETE', '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', { ...split(resource.repository), issue_number: Number(resource.number), name }, null, `unlabel issue #${resource.number}`);
    // The label is already absent: the desired state holds. (A 404 for the Issue itself is not that: it is gone.)
    return !out.ok && out.kind === 'rejected' && out.status === 404 && /label does not exist/i.test(out.message ?? '') ? { ok: true, value: null } : out;
  }

  /**
   * Closes the Issue as completed (completion policy `close-on-result`). Closing is idempotent,
   * so an uncertain answer is simply tried again by a later run; the answer must name this
   * Issue, closed, or it is uncertain.
   */
  async closeIssue(resource: ResourceIdentity): Promise<WriteOutcome<null>> {
    const out = await this.write('PATCH', '/repos/{owner}/{repo}/issues/{issue_number}', { ...split(resource.repository), issue_number: Number(resource.number), state: 'closed', state_reason: 'completed' }, z.object({ id: GitHubId, state: z.enum(['open', 'closed']) }), `close issue #${resource.number}`);
    if (!out.ok) return out;
    return out.value.id === resource.resource_id && out.value.state === 'closed' ? { ok: true, value: null } : { ok: false, kind: 'uncertain', reason: 'response_not_this_issue_closed' };
  }

  createComment(resource: ResourceIdentity, body: string): Promise<WriteOutcome<{ id: string }>> {
    return this.write('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', { ...split(resource.repository), issue_number: Number(resource.number), body }, Comment, `comment on issue #${resource.number}`);
  }

  updateComment(repository: string, commentId: string, body: string): Promise<WriteOutcome<{ id: string }>> {
    return this.write('PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}', { ...split(repository), comment_id: commentId, body }, Comment, `update comment ${commentId}`);
  }
}
