/**
 * The fake's `POST /graphql` refuses what GitHub's schema refuses — an unknown
 * field, a variable of the wrong input type — answering an error as GitHub does
 * and recording a violation (which fails the test that sent it), and answers
 * what the store sends with the shape the schema gives it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_PATH } from './graphql.ts';
import { createFakeGitHub, type FakeGitHub } from './server.ts';
import { seedCommit } from './state.ts';

let fake: FakeGitHub;

beforeAll(async () => {
  fake = await createFakeGitHub();
});

afterAll(async () => {
  await fake?.close();
});

async function post(body: unknown): Promise<{ status: number; json: { data?: unknown; errors?: Array<{ message: string; type?: string }> } }> {
  const res = await fetch(`${fake.url}${GRAPHQL_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as never };
}

describe('fake GitHub GraphQL endpoint', () => {
  it('answers a schema-valid query with the data it resolves', async () => {
    const repo = fake.state.createRepo('o', 'valid');
    const sha = seedCommit(repo, 'work-queue', { 'work-queue.jsonl': 'one\n' });
    const before = fake.violations.length;
    const { json } = await post({
      query: 'query Q($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { ref(qualifiedName: "refs/heads/work-queue") { target { oid ... on Commit { file(path: "work-queue.jsonl") { object { ... on Blob { text byteSize isTruncated } } } } } } } }',
      variables: { owner: 'o', name: 'valid' },
    });
    expect(json.errors).toBeUndefined();
    expect(json.data).toEqual({ repository: { ref: { target: { oid: sha, file: { object: { text: 'one\n', byteSize: 4, isTruncated: false } } } } } });
    expect(fake.violations.length).toBe(before);
  });

  it('refuses a field GitHub does not have, with an error and a violation', async () => {
    const before = fake.violations.length;
    const { status, json } = await post({ query: 'query { repository(owner: "o", name: "valid") { ledgerText } }' });
    expect(status).toBe(200);
    expect(json.errors?.[0]?.message).toMatch(/Cannot query field "ledgerText" on type "Repository"/);
    expect(fake.violations.slice(before)).toEqual([expect.objectContaining({ path: GRAPHQL_PATH, message: expect.stringContaining('does not validate') })]);
    fake.violations.length = before;
  });

  it('refuses variables that do not match the schema input types, with an error and a violation', async () => {
    const before = fake.violations.length;
    const { json } = await post({
      query: 'mutation M($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid } } }',
      variables: { input: { branch: { repositoryNameWithOwner: 'o/valid', branchName: 'work-queue' }, message: { headline: 'x' }, fileChanges: { additions: [{ path: 'a', content: 'eA==' }] } } },
    });
    expect(json.errors?.map((e) => e.message).join('\n')).toMatch(/expectedHeadOid|contents/);
    expect(fake.violations.slice(before)).toEqual([expect.objectContaining({ message: expect.stringContaining('input types') })]);
    fake.violations.length = before;
  });

  it('records an injected answer GitHub could not give (a value of the wrong type, a field not selected), and accepts one it could', async () => {
    const query = 'query Q { repository(owner: "o", name: "valid") { isEmpty ref(qualifiedName: "refs/heads/work-queue") { target { __typename oid } } } }';
    const answer = (repository: Record<string, unknown>) => fake.inject({ method: 'POST', path: GRAPHQL_PATH, kind: 'status', status: 200, body: { data: { repository } } });
    const before = fake.violations.length;
    answer({ isEmpty: false, ref: { target: { __typename: 'Commit', oid: 'a'.repeat(40) } } });
    await post({ query });
    expect(fake.violations.length).toBe(before);
    answer({ isEmpty: 'no', ref: null });
    await post({ query });
    answer({ isEmpty: false, ref: { target: { __typename: 'Commit' } } }); // oid is non-null
    await post({ query });
    answer({ isEmpty: false, ref: null, ledgerText: 'one\n' });
    await post({ query });
    expect(fake.violations.slice(before)).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/not one GitHub could give: .*Boolean cannot represent/) }),
      expect.objectContaining({ message: expect.stringMatching(/not one GitHub could give: .*non-nullable field GitObject\.oid|Commit\.oid/) }),
      expect.objectContaining({ message: expect.stringContaining('fields the query did not select') }),
    ]);
    fake.violations.length = before;
  });

  it('answers a stale expectedHeadOid with STALE_DATA and changes nothing', async () => {
    const repo = fake.state.createRepo('o', 'stale');
    const head = seedCommit(repo, 'work-queue', { 'work-queue.jsonl': 'one\n' });
    const stale = 'a'.repeat(40);
    const { json } = await post({
      query: 'mutation M($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid } } }',
      variables: { input: { branch: { repositoryNameWithOwner: 'o/stale', branchName: 'work-queue' }, expectedHeadOid: stale, message: { headline: 'x' }, fileChanges: { additions: [{ path: 'work-queue.jsonl', contents: 'eA==' }] } } },
    });
    expect(json.errors).toEqual([expect.objectContaining({ type: 'STALE_DATA', path: ['createCommitOnBranch'], message: `Expected branch to point to "${stale}" but it did not. Pull and try again.` })]);
    expect(repo.refs.get('refs/heads/work-queue')).toBe(head);
  });
});
