/**
 * The ledger on a branch of a GitHub repository in two requests (operator
 * reference: "An ordinary checked queue read/publication takes two requests"):
 *
 * - Read: one GraphQL query resolves the branch to its commit OID and, in the
 *   same query, that commit's `work-queue.jsonl` blob with its text. The blob
 *   belongs to the commit whose OID is reported, so version and bytes are read
 *   at one immutable head. The text is accepted only if it re-encodes to exactly
 *   the blob's size and Git object id; when GraphQL reports it truncated
 *   (`Blob.isTruncated`), binary or otherwise not exact, the bytes come from the
 *   REST blob endpoint and are checked against the same OID.
 * - Publish: one `createCommitOnBranch` mutation carrying `expectedHeadOid`.
 *   GitHub appends the commit only if the branch head is exactly `expected`:
 *   a strict compare-and-swap (stricter than REST's `force: false`, which
 *   accepts any fast-forward; see github.ts). A stale head is answered with a
 *   `STALE_DATA` error ("Expected branch to point to … but it did not"), a
 *   `conflict`. The mutation is never retried: a lost or timed-out answer, a
 *   5xx or an unclassified GraphQL failure is `uncertain`, which the publisher
 *   resolves by reading back.
 *
 * A branch that does not exist yet cannot be committed to by
 * `createCommitOnBranch`, so genesis (expected null) uses the REST path of the
 * base class (blob, tree, root commit, create ref); it happens once per queue.
 */
import { createHash } from 'node:crypto';
import { ProtocolError } from '../../engine/errors.ts';
import { graphqlRoot } from '../github/host.ts';
import { LEDGER_FILE, type CasOutcome, type LedgerSnapshot } from './types.ts';
import { checkRepoPath, checkVersion, LEDGER_MAX_BYTES, SYMLINK_MODE } from './checks.ts';
import { decodedBytes, GitHubStore, type GitHubStoreOptions } from './github.ts';
import { asGraphqlRead, githubFailure, isRequestError, neverSent } from './github-client.ts';

/** GitHub's GraphQL error objects carry a top-level `type` (NOT_FOUND, FORBIDDEN, STALE_DATA, ...). */
export interface GraphqlError {
  type?: string;
  message: string;
  path?: Array<string | number>;
}

interface GqlBlob {
  __typename: string;
  oid: string;
  byteSize?: number;
  isBinary?: boolean | null;
  isTruncated?: boolean;
  text?: string | null;
}

interface GqlFileTarget {
  __typename: string;
  oid: string;
  file?: { type: string; mode: number; object: GqlBlob | null } | null;
}

/** A TreeEntry's `mode` (an Int) for a symbolic link. */
const SYMLINK_ENTRY_MODE = Number.parseInt(SYMLINK_MODE, 8);

const BLOB_FIELDS = 'type mode object { __typename oid ... on Blob { byteSize isBinary isTruncated text } }';

export const READ_LEDGER = `query FairwayReadLedger($owner: String!, $name: String!, $ref: String!, $path: String!) {
  repository(owner: $owner, name: $name) {
    isEmpty
    ref(qualifiedName: $ref) {
      target { __typename oid ... on Commit { file(path: $path) { ${BLOB_FIELDS} } } }
    }
  }
}`;

export const READ_VERSION = `query FairwayReadVersion($owner: String!, $name: String!, $ref: String!) {
  repository(owner: $owner, name: $name) {
    isEmpty
    ref(qualifiedName: $ref) { target { __typename oid } }
  }
}`;

export const READ_DEFAULT_BRANCH_FILE = `query FairwayReadDefaultBranchFile($owner: String!, $name: String!, $path: String!) {
  repository(owner: $owner, name: $name) {
    defaultBranchRef {
      name
      target { __typename oid ... on Commit { file(path: $path) { ${BLOB_FIELDS} } } }
    }
  }
}`;

export const PUBLISH_LEDGER = `mutation FairwayPublishLedger($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}`;

/** GitHub's answer to a stale `expectedHeadOid`. */
const STALE_HEAD = /Expected branch to point to/i;

/**
 * Refusals of the token, decided before anything runs: FORBIDDEN (no permission) and
 * INSUFFICIENT_SCOPES (a classic token without the `repo` scope; GitHub checks scopes while
 * validating the document, so the mutation never ran).
 */
const DENIED = new Set(['FORBIDDEN', 'INSUFFICIENT_SCOPES']);

export class GitHubGraphqlStore extends GitHubStore {
  /** The root GraphQL's `/graphql` path hangs off (lib/github/host.ts `graphqlRoot`). */
  private readonly graphqlBase: string;

  constructor(options: GitHubStoreOptions) {
    super(options);
    this.graphqlBase = graphqlRoot(options.baseUrl);
  }

  override read(): Promise<LedgerSnapshot> {
    return this.lag.read(() => this.readLedgerOnce(), (s) => s.version);
  }

  override readVersion(): Promise<string | null> {
    return this.lag.read(async () => {
      const repo = await this.query<{ isEmpty: boolean; ref: { target: { __typename: string; oid: string } | null } | null }>('read the queue branch', READ_VERSION, this.refVariables());
      return this.commitOf(repo)?.oid ?? null;
    }, (v) => v);
  }

  private async readLedgerOnce(): Promise<LedgerSnapshot> {
    const repo = await this.query<{ isEmpty: boolean; ref: { target: GqlFileTarget | null } | null }>('read the ledger', READ_LEDGER, { ...this.refVariables(), path: LEDGER_FILE });
    const commit = this.commitOf(repo);
    if (commit === null) return { version: null, bytes: null }; // spec 7.1: absent branch, empty queue
    const file = commit.file ?? null;
    if (file === null) {
      await this.refuseDeletedLedger(commit.oid);
      return { version: commit.oid, bytes: null };
    }
    if (file.type !== 'blob' || file.object?.__typename !== 'Blob') throw new ProtocolError('store_path_not_a_file', `${LEDGER_FILE} at ${commit.oid} is a ${file.type}, not a file`, { commit: commit.oid });
    if (file.mode === SYMLINK_ENTRY_MODE) throw new ProtocolError('store_path_not_a_file', `${LEDGER_FILE} at ${commit.oid} is a symbolic link, not a file: the branch must hold the file itself`, { commit: commit.oid });
    return { version: commit.oid, bytes: await this.blobBytes(file.object, LEDGER_FILE) };
  }

  override async compareAndSwap(expected: string | null, bytes: Uint8Array, message: string): Promise<CasOutcome> {
    checkVersion(expected);
    if (expected === null) return super.compareAndSwap(null, bytes, message); // createCommitOnBranch needs an existing branch
    const [headline = '', ...rest] = message.split('\n');
    const body = rest.join('\n').replace(/^\n+/, '');
    const input = {
      branch: { repositoryNameWithOwner: `${this.where.owner}/${this.where.repo}`, branchName: this.branch },
      expectedHeadOid: expected,
      message: { headline: headline === '' ? 'work-queue: publish ledger' : headline, ...(body !== '' && { body }) },
      fileChanges: { additions: [{ path: LEDGER_FILE, contents: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') }] },
    };
    let answer: { data: { createCommitOnBranch?: { commit?: { oid?: string } | null } | null } | null; errors: GraphqlError[] };
    try {
      // retries: 0 — the mutation is not idempotent; decide from the answer, never resend.
      answer = await this.send(PUBLISH_LEDGER, { input }, true);
    } catch (e) {
      // A 2xx answer that is not GraphQL's JSON (a proxy's page, a body cut off after its headers): it reached GitHub.
      if (e instanceof ProtocolError && e.code === 'github_response_invalid') return { status: 'uncertain', reason: `createCommitOnBranch: ${e.message}` };
      const limited = rateLimited(e);
      if (limited !== null) throw limited; // refused before it ran
      if (!isRequestError(e)) throw e;
      if (e.response === undefined) {
        if (neverSent(e)) throw githubFailure('publish the ledger', e, this.label, true);
        return { status: 'uncertain', reason: `createCommitOnBranch: no answer after sending (${e.message})` };
      }
      if (e.status >= 500) return { status: 'uncertain', reason: `createCommitOnBranch: GitHub answered ${e.status}` };
      throw githubFailure('publish the ledger', e, this.label, true);
    }
    const oid = answer.data?.createCommitOnBranch?.commit?.oid;
    if (answer.errors.length === 0 && typeof oid === 'string') {
      this.lag.committed(oid, expected);
      return { status: 'committed', version: oid };
    }
    return this.mutationFailure(answer.errors);
  }

  /** The file at the default branch's tip, in one query; null when absent or when the default branch is the queue branch (spec 7.1). */
  override async readDefaultBranchFile(path: string): Promise<Uint8Array | null> {
    const file = checkRepoPath(path);
    const repo = await this.query<{ defaultBranchRef: { name: string; target: GqlFileTarget | null } | null }>(`read ${file}`, READ_DEFAULT_BRANCH_FILE, { owner: this.where.owner, name: this.where.repo, path: file });
    const ref = repo.defaultBranchRef;
    if (ref === null || ref.name === this.branch || ref.target?.__typename !== 'Commit') return null;
    const entry = ref.target.file ?? null;
    if (entry === null) return null;
    // A symbolic link is not a file here either (the REST contents API answers `type: symlink`).
    if (entry.type !== 'blob' || entry.object?.__typename !== 'Blob' || entry.mode === SYMLINK_ENTRY_MODE) throw new ProtocolError('store_path_not_a_file', `${file} on ${ref.name} is not a file`);
    return this.blobBytes(entry.object, file);
  }

  private refVariables(): { owner: string; name: string; ref: string } {
    return { owner: this.where.owner, name: this.where.repo, ref: `refs/heads/${this.branch}` };
  }

  /** The branch's commit, or null when the branch is absent; an empty repository is not proof of absence. */
  private commitOf<T extends { __typename: string; oid: string }>(repo: { isEmpty: boolean; ref: { target: T | null } | null }): T | null {
    if (repo.isEmpty) throw new ProtocolError('store_repository_empty', `${this.label}: the repository is empty (no branch at all)`);
    if (repo.ref === null) return null;
    const target = repo.ref.target;
    if (target === null || target.__typename !== 'Commit') throw new ProtocolError('github_response_invalid', `refs/heads/${this.branch} points at a ${target?.__typename ?? 'missing object'}`);
    return target;
  }

  /** Exact blob bytes: GraphQL's text when it is provably the blob, else the REST blob, checked against the OID. */
  private async blobBytes(blob: GqlBlob, what: string): Promise<Uint8Array> {
    if (typeof blob.byteSize === 'number' && blob.byteSize > LEDGER_MAX_BYTES) {
      throw new ProtocolError('resource_limit', `${what} (blob ${blob.oid}) is ${blob.byteSize} bytes; the parser limit is ${LEDGER_MAX_BYTES}`, {}, { limit: 'ledger_bytes', max: LEDGER_MAX_BYTES });
    }
    if (typeof blob.text === 'string' && blob.isTruncated === false && blob.isBinary !== true) {
      const bytes = decodedBytes(blob.text, 'utf8');
      if (bytes.length === blob.byteSize && gitBlobId(bytes, blob.oid) === blob.oid) return bytes;
    }
    const bytes = await this.blob(blob.oid);
    if (gitBlobId(bytes, blob.oid) !== blob.oid) throw new ProtocolError('github_response_invalid', `${what}: the REST blob does not hash to ${blob.oid}`);
    return bytes;
  }

  /** A query whose `repository` must resolve; any GraphQL error fails the read (partial data is not trusted). */
  private async query<T>(action: string, query: string, variables: Record<string, unknown>): Promise<T> {
    let answer: { data: { repository?: T | null } | null; errors: GraphqlError[] };
    try {
      answer = await this.send(query, variables, false);
    } catch (e) {
      throw rateLimited(e) ?? githubFailure(action, e, this.label);
    }
    if (answer.errors.length > 0) throw readFailure(action, answer.errors, this.label);
    const repo = answer.data?.repository;
    if (repo === undefined || repo === null) throw new ProtocolError('github_response_invalid', `GitHub's answer to ${action} (${this.label}) has no repository`);
    return repo;
  }

  private async send<T>(query: string, variables: Record<string, unknown>, write: boolean): Promise<{ data: T | null; errors: GraphqlError[] }> {
    // `url` is the path `/graphql` on its own root: the throttling plugin recognises a GraphQL request
    // (its RATE_LIMITED answers, its limit) only by that path, never GHES's absolute `…/api/graphql`.
    const request = () => this.octokit.request({ method: 'POST', baseUrl: this.graphqlBase, url: '/graphql', query, variables, ...(write && { request: { retries: 0 } }) });
    const response = write ? await request() : await asGraphqlRead(request);
    const body = response.data as { data?: T | null; errors?: unknown } | null;
    if (body === null || typeof body !== 'object') throw new ProtocolError('github_response_invalid', `GitHub's GraphQL endpoint answered a ${typeof body}, not a JSON object`);
    const errors = Array.isArray(body.errors) ? (body.errors as GraphqlError[]) : [];
    return { data: body.data ?? null, errors };
  }

  private mutationFailure(errors: GraphqlError[]): CasOutcome {
    const messages = errors.map((e) => e.message).join('; ');
    const details = { graphql_errors: errors.map((e) => ({ type: e.type ?? null, message: e.message })) };
    if (errors.some((e) => e.type === 'STALE_DATA' || STALE_HEAD.test(e.message))) return { status: 'conflict' };
    const notFound = errors.find((e) => e.type === 'NOT_FOUND');
    if (notFound !== undefined) {
      if (/Could not resolve to a Repository/i.test(notFound.message)) throw new ProtocolError('github_not_found', `GitHub could not find the repository to publish the ledger (${this.label}): ${messages}`, {}, details);
      return { status: 'conflict', actual: null }; // the branch is absent: nothing to append to
    }
    if (errors.some((e) => DENIED.has(e.type ?? '')) || (errors.some((e) => e.type === 'UNPROCESSABLE') && /repository rule|protected branch/i.test(messages))) {
      throw new ProtocolError('store_write_denied', `GitHub refused to publish the ledger (${this.label}): ${messages}`, {}, details);
    }
    if (errors.some((e) => e.type === 'RATE_LIMITED')) throw new ProtocolError('github_rate_limited', `GitHub rate-limited the ledger publication (${this.label}): ${messages}`, {}, details);
    if (errors.some((e) => e.type === 'UNPROCESSABLE' || e.type === 'INVALID_INPUT' || e.type === 'BAD_REQUEST')) {
      throw new ProtocolError('github_request_failed', `GitHub rejected the ledger publication (${this.label}): ${messages}`, {}, details);
    }
    // No classification that proves the mutation did not run (timeouts, "Something went wrong", no commit returned).
    return { status: 'uncertain', reason: `createCommitOnBranch: ${messages || 'no commit in the answer'}` };
  }
}

/** The Git object id of a blob (SHA-1, or SHA-256 when `like` is a 64-digit id). */
export function gitBlobId(bytes: Uint8Array, like = ''): string {
  const hash = createHash(like.length === 64 ? 'sha256' : 'sha1');
  return hash.update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

function readFailure(action: string, errors: GraphqlError[], where: string): ProtocolError {
  const messages = errors.map((e) => e.message).join('; ');
  const details = { graphql_errors: errors.map((e) => ({ type: e.type ?? null, message: e.message })) };
  const types = new Set(errors.map((e) => e.type));
  if (types.has('NOT_FOUND')) return new ProtocolError('github_not_found', `GitHub could not find what was needed to ${action} (${where}); the repository may not exist or the token may lack access: ${messages}`, {}, details);
  if ([...types].some((t) => DENIED.has(t ?? ''))) return new ProtocolError('github_forbidden', `GitHub refused to ${action} (${where}): ${messages}`, {}, details);
  if (types.has('RATE_LIMITED')) return new ProtocolError('github_rate_limited', `GitHub rate-limited the request to ${action} (${where}): ${messages}`, {}, details);
  return new ProtocolError('github_request_failed', `GitHub's GraphQL API failed to ${action} (${where}): ${messages}`, {}, details);
}

/** The throttling plugin's "GraphQL Rate Limit Exceeded" (a plain Error carrying the answer), as a coded error. */
function rateLimited(e: unknown): ProtocolError | null {
  const errors = (e as { data?: { errors?: unknown } } | null)?.data?.errors;
  if (isRequestError(e) || !Array.isArray(errors) || !errors.some((x) => (x as GraphqlError).type === 'RATE_LIMITED')) return null;
  return new ProtocolError('github_rate_limited', `GitHub's GraphQL rate limit is exhausted: ${(errors as GraphqlError[]).map((x) => x.message).join('; ')}`);
}
