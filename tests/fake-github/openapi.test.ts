/**
 * The OpenAPI check the fake GitHub runs on every response: it accepts what
 * GitHub documents and catches what it does not — missing or mistyped fields,
 * undescribed extra fields, undocumented statuses and media types — both
 * directly and through the server's violation log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubOpenApi } from './openapi.ts';
import { createFakeGitHub, type FakeGitHub } from './server.ts';
import { seedCommit } from './state.ts';

const GET_REF = '/repos/{owner}/{repo}/git/ref/{ref}';
const sha = 'a'.repeat(40);
const gitRef = {
  ref: 'refs/heads/work-queue',
  node_id: 'REF_1',
  url: 'https://api.github.com/repos/o/r/git/refs/heads/work-queue',
  object: { type: 'commit', sha, url: `https://api.github.com/repos/o/r/git/commits/${sha}` },
};

describe('OpenAPI response validation', () => {
  const api = githubOpenApi();
  const check = (status: number, body: unknown, extra: { method?: string; path?: string; contentType?: string } = {}) =>
    api.check({ method: extra.method ?? 'GET', path: extra.path ?? GET_REF, status, body, ...(extra.contentType && { contentType: extra.contentType }) });

  it('accepts a response exactly as documented', () => {
    expect(check(200, gitRef)).toBeNull();
    expect(check(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' })).toBeNull();
  });

  it('catches a missing required field and a wrong type', () => {
    const { sha: _sha, ...object } = gitRef.object;
    expect(check(200, { ...gitRef, object })?.message).toMatch(/must have required property 'sha'/);
    expect(check(200, { ...gitRef, object: { ...gitRef.object, sha: 'short' } })?.message).toMatch(/must NOT have fewer than 40 characters/);
    expect(check(200, { ...gitRef, node_id: 7 })?.message).toMatch(/must be string/);
  });

  it('catches a field the description does not name (objects are closed)', () => {
    expect(check(200, { ...gitRef, nodeId: 'typo' })?.message).toMatch(/unevaluated properties/);
    expect(check(200, { ...gitRef, object: { ...gitRef.object, size: 1 } })?.message).toMatch(/unevaluated properties/);
  });

  it('understands OpenAPI 3.0 nullable', () => {
    const blob = { sha, node_id: 'B_1', url: 'https://api.github.com/x', content: '', encoding: 'base64' };
    const path = '/repos/{owner}/{repo}/git/blobs/{file_sha}';
    expect(check(200, { ...blob, size: null }, { path })).toBeNull();
    expect(check(200, { ...blob, size: '3' }, { path })?.message).toMatch(/must be integer/);
  });

  it('catches undocumented operations, statuses and media types', () => {
    expect(check(200, gitRef, { path: '/repos/{owner}/{repo}/git/reference/{ref}' })?.message).toMatch(/no such operation/);
    expect(check(502, { message: 'Server Error' })?.message).toMatch(/status 502 is not documented/);
    expect(check(200, gitRef, { contentType: 'text/html' })?.message).toMatch(/media type text\/html is not documented/);
    expect(check(204, undefined, { method: 'DELETE', path: '/repos/{owner}/{repo}/git/refs/{ref}' })).toBeNull();
    expect(check(204, {}, { method: 'DELETE', path: '/repos/{owner}/{repo}/git/refs/{ref}' })?.message).toMatch(/no body/);
  });
});

describe('fake GitHub server validation', () => {
  let fake: FakeGitHub;

  beforeAll(async () => {
    // A deliberately wrong route, added the way Issues/Pulls/Actions routes are.
    fake = await createFakeGitHub({
      routes: [{ method: 'GET', path: '/repos/{owner}/{repo}/git/commits/{commit_sha}', handle: (req) => ({ status: 200, body: { sha: req.params.commit_sha, message: 'no tree, author or parents' } }) }],
    });
    seedCommit(fake.state.createRepo('o', 'r'), 'main', { 'README.md': 'x' });
  });

  afterAll(async () => {
    await fake.close();
  });

  it('records every response that does not match the description, and none that does', async () => {
    const ok = await fetch(`${fake.url}/repos/o/r/git/ref/heads%2Fmain`);
    expect(ok.status).toBe(200);
    expect(fake.violations).toEqual([]);
    const bad = await fetch(`${fake.url}/repos/o/r/git/commits/${sha}`);
    expect(bad.status).toBe(200);
    expect(fake.violations).toHaveLength(1);
    expect(fake.violations[0]).toMatchObject({ method: 'GET', path: '/repos/{owner}/{repo}/git/commits/{commit_sha}', status: 200 });
    expect(fake.violations[0]!.message).toMatch(/required property 'node_id'/);
  });

  it('records a request no route answers', async () => {
    const before = fake.violations.length;
    expect((await fetch(`${fake.url}/repos/o/r/issues`)).status).toBe(404);
    expect(fake.violations.slice(before)).toEqual([expect.objectContaining({ message: 'the fake has no route for this request' })]);
  });

  it('routes GitHub parameters that span segments, encoded or not', async () => {
    const repo = fake.state.repo('o', 'r')!;
    seedCommit(repo, 'feature/deep/name', { 'a/b/c.txt': 'c' });
    const before = fake.violations.length;
    for (const path of ['/repos/o/r/git/ref/heads/feature/deep/name', '/repos/o/r/git/ref/heads%2Ffeature%2Fdeep%2Fname']) {
      const res = await fetch(`${fake.url}${path}`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { ref: string }).ref).toBe('refs/heads/feature/deep/name');
    }
    const file = await fetch(`${fake.url}/repos/o/r/contents/a%2Fb%2Fc.txt?ref=feature%2Fdeep%2Fname`);
    expect(((await file.json()) as { content: string }).content).toBe(`${Buffer.from('c').toString('base64')}\n`);
    const dir = await fetch(`${fake.url}/repos/o/r/contents/a?ref=feature/deep/name`);
    expect(((await dir.json()) as Array<{ type: string; path: string }>).map((e) => [e.type, e.path])).toEqual([['dir', 'a/b']]);
    expect(fake.violations.slice(before)).toEqual([]);
  });

  it('spells non-ASCII and reserved characters of branch names and paths in its URLs as URIs, as GitHub does', async () => {
    const repo = fake.state.repo('o', 'r')!;
    const sha = seedCommit(repo, 'équipe/file-ü', { 'docs/été #1.md': 'e' });
    const before = fake.violations.length;
    const created = await fetch(`${fake.url}/repos/o/r/git/refs`, { method: 'POST', body: JSON.stringify({ ref: 'refs/heads/q#1#2', sha }) });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { url: string }).url).toBe(`${fake.url}/repos/o/r/git/refs/heads/q%231%232`);
    expect((await fetch(`${fake.url}/repos/o/r/git/ref/${encodeURIComponent('heads/équipe/file-ü')}`)).status).toBe(200);
    const file = await fetch(`${fake.url}/repos/o/r/contents/${encodeURIComponent('docs/été #1.md')}?ref=${encodeURIComponent('équipe/file-ü')}`);
    expect(file.status).toBe(200);
    expect(fake.violations.slice(before)).toEqual([]);
  });
});
