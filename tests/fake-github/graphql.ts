/**
 * The fake GitHub's `POST /graphql`: just what the ledger store uses
 * (repository → ref → commit → file → blob, the default branch, and the
 * `createCommitOnBranch` mutation), executed by graphql-js against GitHub's own
 * schema (`@octokit/graphql-schema`), so every answer has exactly the shape the
 * schema gives it.
 *
 * Every incoming document is validated with `@octokit/graphql-schema`'s
 * `validate`, and its variables are coerced against the schema's input types.
 * A failure of either is answered as GitHub answers it (HTTP 200, `errors`) AND
 * recorded as a violation, which fails the test. So is any error the schema
 * raises on the fake's own answers (a resolver value the schema refuses), and
 * on a test's injected answers (`checkInjectedAnswer`).
 */
import { schema as githubSchemaJson, validate as validateDocument } from '@octokit/graphql-schema';
import {
  buildClientSchema, execute, getOperationAST, getVariableValues, GraphQLError, parse,
  type DocumentNode, type GraphQLSchema, type IntrospectionQuery,
} from 'graphql';
import { isDeepStrictEqual } from 'node:util';
import type { OpenApiViolation } from './openapi.ts';
import type { FakeResponse } from './router.ts';
import type { ObjectType, TreeChange, TreeEntry } from './objects.ts';
import { FAKE_USER, isoNow, refVisible, type FakeGitHubState, type FakeRepository } from './state.ts';

export const GRAPHQL_PATH = '/graphql';

export interface FakeGraphqlOptions {
  /**
   * Blobs whose size exceeds this are answered with `isTruncated: true` and
   * their text cut there. GitHub does not document its own limit; the store
   * never depends on the number, only on `isTruncated` and the blob's OID.
   */
  blobTextLimit: number;
}

export const DEFAULT_BLOB_TEXT_LIMIT = 512 * 1024;

/** An error GitHub reports with a top-level `type` (NOT_FOUND, STALE_DATA, ...). */
class TypedError extends Error {
  constructor(readonly type: string, message: string) {
    super(message);
  }
}

let schemaCache: GraphQLSchema | undefined;

function githubSchema(): GraphQLSchema {
  return (schemaCache ??= buildClientSchema(githubSchemaJson.json as unknown as IntrospectionQuery));
}

/** The operation name of a GraphQL request body (for fault matching and request records). */
export function operationName(body: unknown): string | undefined {
  const b = body as { query?: unknown; operationName?: unknown } | null;
  if (typeof b?.operationName === 'string') return b.operationName;
  if (typeof b?.query !== 'string') return undefined;
  return /^\s*(?:query|mutation)\s+(\w+)/.exec(b.query)?.[1];
}

export function handleGraphql(body: unknown, state: FakeGitHubState, options: FakeGraphqlOptions, violations: OpenApiViolation[]): FakeResponse {
  const refuse = (message: string, errors: unknown[] = [{ message }]): FakeResponse => {
    violations.push({ method: 'POST', path: GRAPHQL_PATH, status: 200, message, errors });
    return { status: 200, body: { errors } };
  };
  const b = body as { query?: unknown; variables?: unknown; operationName?: unknown } | null;
  if (b === null || typeof b !== 'object' || typeof b.query !== 'string') return refuse('the GraphQL request has no query string');
  if (b.variables !== undefined && b.variables !== null && (typeof b.variables !== 'object' || Array.isArray(b.variables))) return refuse('variables must be an object');

  const invalid = validateDocument(b.query);
  if (invalid.length > 0) return refuse(`the document does not validate against GitHub's schema: ${invalid.map(String).join('; ')}`, invalid.map((e) => ({ message: e.message, locations: e.locations })));
  const document: DocumentNode = parse(b.query);
  const operation = getOperationAST(document, typeof b.operationName === 'string' ? b.operationName : undefined);
  if (operation === null || operation === undefined) return refuse('no single operation to run');
  const coerced = getVariableValues(githubSchema(), operation.variableDefinitions ?? [], (b.variables ?? {}) as Record<string, unknown>);
  if (coerced.errors !== undefined) return refuse(`the variables do not match the schema's input types: ${coerced.errors.map(String).join('; ')}`, coerced.errors.map((e) => ({ message: e.message })));

  const result = execute({
    schema: githubSchema(),
    document,
    variableValues: (b.variables ?? {}) as Record<string, unknown>,
    ...(typeof b.operationName === 'string' && { operationName: b.operationName }),
    rootValue: operation.operation === 'mutation' ? mutationRoot(state) : queryRoot(state, options),
  });
  if ('then' in result) return refuse('the fake resolved asynchronously');
  const errors = (result.errors ?? []).map((e) => githubError(e, violations));
  return { status: 200, body: { ...(result.data !== undefined && { data: result.data }), ...(errors.length > 0 && { errors }) } };
}

/**
 * A test's injected answer (a `status` fault) must still be one GitHub could give: its `data` is
 * run through the request's own document against the schema, and a value the schema refuses, a
 * missing non-null field or a field the document did not select is recorded as a violation.
 */
export function checkInjectedAnswer(body: unknown, answer: unknown, violations: OpenApiViolation[]): void {
  const b = body as { query?: unknown; variables?: unknown; operationName?: unknown } | null;
  const data = (answer as { data?: unknown } | null)?.data;
  if (data === undefined || data === null || typeof b?.query !== 'string') return; // errors only: nothing to check
  const refuse = (message: string, errors?: unknown[]) => violations.push({ method: 'POST', path: GRAPHQL_PATH, status: 200, message: `the injected answer is not one GitHub could give: ${message}`, ...(errors && { errors }) });
  let result;
  try {
    result = execute({
      schema: githubSchema(), document: parse(b.query), rootValue: data,
      variableValues: (b.variables ?? {}) as Record<string, unknown>,
      ...(typeof b.operationName === 'string' && { operationName: b.operationName }),
    });
  } catch (e) {
    return void refuse(String(e));
  }
  if ('then' in result) return void refuse('it resolved asynchronously');
  if (result.errors !== undefined) return void refuse(result.errors.map(String).join('; '), result.errors.map((e) => e.path));
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(result.data)), data)) refuse('it holds fields the query did not select');
}

/** GitHub's error shape; an error the fake did not mean to raise is a violation. */
function githubError(e: GraphQLError, violations: OpenApiViolation[]): Record<string, unknown> {
  const typed = e.originalError instanceof TypedError ? e.originalError : null;
  if (typed === null) violations.push({ method: 'POST', path: GRAPHQL_PATH, status: 200, message: `the schema refused the fake's answer: ${e.message}`, errors: [e.path] });
  return { ...(typed !== null && { type: typed.type }), path: e.path, locations: e.locations, message: e.message };
}

function findRepo(state: FakeGitHubState, owner: string, name: string): FakeRepository {
  const repo = state.repo(owner, name);
  if (repo === undefined) throw new TypedError('NOT_FOUND', `Could not resolve to a Repository with the name '${owner}/${name}'.`);
  return repo;
}

function queryRoot(state: FakeGitHubState, options: FakeGraphqlOptions): Record<string, unknown> {
  return {
    repository: ({ owner, name }: { owner: string; name: string }) => repositoryNode(findRepo(state, owner, name), options),
  };
}

function repositoryNode(repo: FakeRepository, options: FakeGraphqlOptions): Record<string, unknown> {
  return {
    __typename: 'Repository',
    id: `R_${repo.id}`,
    name: repo.name,
    nameWithOwner: `${repo.owner}/${repo.name}`,
    isEmpty: repo.refs.size === 0,
    ref: ({ qualifiedName }: { qualifiedName: string }) => {
      const ref = qualifiedName.startsWith('refs/') ? qualifiedName : `refs/heads/${qualifiedName}`;
      return repo.refs.has(ref) && refVisible(repo, ref) ? refNode(repo, ref, options) : null;
    },
    defaultBranchRef: () => {
      const ref = `refs/heads/${repo.defaultBranch}`;
      return repo.refs.has(ref) ? refNode(repo, ref, options) : null;
    },
  };
}

function refNode(repo: FakeRepository, ref: string, options: FakeGraphqlOptions): Record<string, unknown> {
  const [, prefix, name] = /^(refs\/[^/]+\/)(.*)$/.exec(ref)!;
  return { __typename: 'Ref', id: `REF_${Buffer.from(`${repo.id}:${ref}`).toString('base64url')}`, name, prefix, target: () => commitNode(repo, repo.refs.get(ref)!, options) };
}

function commitNode(repo: FakeRepository, sha: string, options: FakeGraphqlOptions): Record<string, unknown> {
  const commit = repo.objects.commits.get(sha)!;
  return {
    __typename: 'Commit',
    id: `C_${sha}`,
    oid: sha,
    abbreviatedOid: sha.slice(0, 7),
    message: commit.message,
    messageHeadline: commit.message.split('\n')[0],
    file: ({ path }: { path: string }) => {
      const entry = repo.objects.lookup(commit.tree, path.replace(/^\/+|\/+$/g, ''));
      return entry === null ? null : treeEntryNode(repo, entry, path, options);
    },
  };
}

function treeEntryNode(repo: FakeRepository, entry: TreeEntry, path: string, options: FakeGraphqlOptions): Record<string, unknown> {
  const size = entry.type === 'blob' ? repo.objects.blobs.get(entry.sha)!.length : 0;
  return {
    name: entry.name,
    path,
    mode: Number.parseInt(entry.mode, 8),
    type: entry.type,
    oid: entry.sha,
    size,
    object: () => objectNode(repo, entry.sha, entry.type, options),
  };
}

function objectNode(repo: FakeRepository, sha: string, type: ObjectType, options: FakeGraphqlOptions): Record<string, unknown> | null {
  if (type === 'tree') return { __typename: 'Tree', id: `T_${sha}`, oid: sha, abbreviatedOid: sha.slice(0, 7) };
  if (type === 'commit') return null; // a submodule's commit is not in this repository
  const bytes = repo.objects.blobs.get(sha)!;
  // Git's heuristic: a NUL in the first 8000 bytes makes a blob binary; binary blobs have no text.
  const binary = bytes.subarray(0, 8000).includes(0);
  const truncated = bytes.length > options.blobTextLimit;
  return {
    __typename: 'Blob',
    id: `B_${sha}`,
    oid: sha,
    abbreviatedOid: sha.slice(0, 7),
    byteSize: bytes.length,
    isBinary: binary,
    isTruncated: truncated,
    text: binary ? null : bytes.subarray(0, truncated ? options.blobTextLimit : bytes.length).toString('utf8'),
  };
}

interface CommitInput {
  branch: { repositoryNameWithOwner?: string; branchName?: string; id?: string };
  expectedHeadOid: string;
  message: { headline: string; body?: string | null };
  fileChanges?: { additions?: Array<{ path: string; contents: string }>; deletions?: Array<{ path: string }> };
}

/** Strict Base64 (no backtracking: ledgers are megabytes). */
function isBase64(text: string): boolean {
  return text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);
}

function mutationRoot(state: FakeGitHubState): Record<string, unknown> {
  return {
    createCommitOnBranch: ({ input }: { input: CommitInput }) => {
      const { repositoryNameWithOwner: nwo, branchName } = input.branch;
      if (nwo === undefined || branchName === undefined) throw new TypedError('UNPROCESSABLE', 'the fake only locates branches by repositoryNameWithOwner and branchName');
      const [owner = '', name = ''] = nwo.split('/');
      const repo = findRepo(state, owner, name);
      const ref = `refs/heads/${branchName.replace(/^refs\/heads\//, '')}`;
      const head = repo.refs.get(ref);
      if (head === undefined) throw new TypedError('NOT_FOUND', `A ref named "${ref}" does not exist in ${repo.owner}/${repo.name}.`);
      if (input.expectedHeadOid !== head) throw new TypedError('STALE_DATA', `Expected branch to point to "${input.expectedHeadOid}" but it did not. Pull and try again.`);
      const base = repo.objects.commits.get(head)!.tree;
      const changes: TreeChange[] = [];
      for (const addition of input.fileChanges?.additions ?? []) {
        if (!isBase64(addition.contents)) throw new TypedError('UNPROCESSABLE', `contents of ${addition.path} is not Base64`);
        const existing = repo.objects.lookup(base, addition.path);
        const mode = existing?.type === 'blob' ? existing.mode : '100644';
        changes.push({ path: addition.path, mode, type: 'blob', sha: repo.objects.putBlob(Buffer.from(addition.contents, 'base64')) });
      }
      for (const deletion of input.fileChanges?.deletions ?? []) {
        if (repo.objects.lookup(base, deletion.path) === null) throw new TypedError('UNPROCESSABLE', `A path was requested for deletion which does not exist as of commit oid \`${head}\``);
        changes.push({ path: deletion.path, mode: '100644', type: 'blob', sha: null });
      }
      const tree = repo.objects.writeTree(base, changes);
      const who = { name: FAKE_USER.name, email: FAKE_USER.email, date: isoNow() };
      const body = input.message.body ?? '';
      const message = body === '' ? input.message.headline : `${input.message.headline}\n\n${body}`;
      const sha = repo.objects.putCommit({ tree, parents: [head], author: who, committer: who, message });
      repo.refs.set(ref, sha);
      return { commit: { __typename: 'Commit', id: `C_${sha}`, oid: sha, abbreviatedOid: sha.slice(0, 7) } };
    },
  };
}
