/**
 * The Git database API (refs, blobs, trees, commits) of the fake GitHub, with
 * GitHub's semantics for what the ledger store relies on: `force: false` ref
 * updates only fast-forward, creating an existing ref fails, an empty
 * repository answers 409.
 */
import type { ObjectType, TreeChange, TreeEntry } from './objects.ts';
import { errorBody, notFound, unprocessable, uriPath, type FakeRequest, type FakeResponse, type FakeRoute } from './router.ts';
import { FAKE_USER, isoNow, noteRefCreated, refVisible, type FakeGitHubState, type FakeRepository } from './state.ts';

const DOCS = 'https://docs.github.com/rest/git';
type Body = Record<string, unknown>;

function repoUrl(req: FakeRequest, repo: FakeRepository): string {
  return `${req.baseUrl}/repos/${repo.owner}/${repo.name}`;
}

/** Resolves the repository, refusing an empty one like GitHub's Git data API does. */
function withRepo(req: FakeRequest, state: FakeGitHubState, then: (repo: FakeRepository) => FakeResponse): FakeResponse {
  const repo = state.repo(req.params.owner!, req.params.repo!);
  if (repo === undefined) return notFound();
  if (repo.refs.size === 0) return { status: 409, body: { ...errorBody('Git Repository is empty.', DOCS), status: '409' } };
  return then(repo);
}

function refJson(req: FakeRequest, repo: FakeRepository, ref: string): Body {
  const sha = repo.refs.get(ref)!;
  return {
    ref,
    node_id: `REF_${Buffer.from(`${repo.id}:${ref}`).toString('base64url')}`,
    url: `${repoUrl(req, repo)}/git/${uriPath(ref)}`,
    object: { type: 'commit', sha, url: `${repoUrl(req, repo)}/git/commits/${sha}` },
  };
}

function commitJson(req: FakeRequest, repo: FakeRepository, sha: string): Body {
  const c = repo.objects.commits.get(sha)!;
  const base = repoUrl(req, repo);
  return {
    sha,
    node_id: `C_${sha}`,
    url: `${base}/git/commits/${sha}`,
    html_url: `https://github.com/${repo.owner}/${repo.name}/commit/${sha}`,
    author: c.author,
    committer: c.committer,
    tree: { sha: c.tree, url: `${base}/git/trees/${c.tree}` },
    message: c.message,
    parents: c.parents.map((p) => ({ sha: p, url: `${base}/git/commits/${p}`, html_url: `https://github.com/${repo.owner}/${repo.name}/commit/${p}` })),
    verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
  };
}

function treeJson(req: FakeRequest, repo: FakeRepository, sha: string, recursive: boolean): Body {
  const entries: Array<TreeEntry & { path: string }> = recursive
    ? flattenWithTrees(repo, sha, '')
    : repo.objects.trees.get(sha)!.map((e) => ({ ...e, path: e.name }));
  return {
    sha,
    url: `${repoUrl(req, repo)}/git/trees/${sha}`,
    tree: entries.map((e) => ({
      path: e.path,
      mode: e.mode,
      type: e.type,
      sha: e.sha,
      ...(e.type === 'blob' && { size: repo.objects.blobs.get(e.sha)!.length }),
      ...(e.type !== 'commit' && { url: `${repoUrl(req, repo)}/git/${e.type}s/${e.sha}` }),
    })),
    truncated: false,
  };
}

function flattenWithTrees(repo: FakeRepository, tree: string, prefix: string): Array<TreeEntry & { path: string }> {
  return repo.objects.trees.get(tree)!.flatMap((e) => {
    const path = `${prefix}${e.name}`;
    return e.type === 'tree' ? [{ ...e, path }, ...flattenWithTrees(repo, e.sha, `${path}/`)] : [{ ...e, path }];
  });
}

/** Base64 with a newline every 60 characters, as GitHub returns blob content. */
export function wrappedBase64(bytes: Buffer): string {
  return (bytes.toString('base64').match(/.{1,60}/g) ?? []).map((l) => `${l}\n`).join('');
}

const MODES: Record<string, ObjectType> = { '100644': 'blob', '100755': 'blob', '120000': 'blob', '040000': 'tree', '160000': 'commit' };

export const gitRoutes: FakeRoute[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/git/ref/{ref}',
    handle: (req, state) => withRepo(req, state, (repo) => {
      const ref = `refs/${req.params.ref}`;
      return repo.refs.has(ref) && refVisible(repo, ref) ? { status: 200, body: refJson(req, repo, ref) } : notFound();
    }),
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/git/refs',
    handle: (req, state) => withRepo(req, state, (repo) => {
      const { ref, sha } = req.body as Body;
      if (typeof ref !== 'string' || !/^refs\/[^/]+\/.+/.test(ref)) return unprocessable('Reference name is invalid', `${DOCS}/refs#create-a-reference`);
      if (typeof sha !== 'string' || !repo.objects.commits.has(sha)) return unprocessable('Object does not exist', `${DOCS}/refs#create-a-reference`);
      if (repo.refs.has(ref)) return unprocessable('Reference already exists', `${DOCS}/refs#create-a-reference`);
      repo.refs.set(ref, sha);
      noteRefCreated(state, repo, ref);
      return { status: 201, body: refJson(req, repo, ref), headers: { location: `${repoUrl(req, repo)}/git/${uriPath(ref)}` } };
    }),
  },
  {
    method: 'PATCH',
    path: '/repos/{owner}/{repo}/git/refs/{ref}',
    handle: (req, state) => withRepo(req, state, (repo) => {
      const { sha, force } = req.body as Body;
      const ref = `refs/${req.params.ref}`;
      const docs = `${DOCS}/refs#update-a-reference`;
      const current = repo.refs.get(ref);
      if (current === undefined) return unprocessable('Reference does not exist', docs);
      if (typeof sha !== 'string' || !repo.objects.commits.has(sha)) return unprocessable('Object does not exist', docs);
      if (force !== true && !repo.objects.isAncestor(current, sha)) return unprocessable('Update is not a fast forward', docs);
      repo.refs.set(ref, sha);
      return { status: 200, body: refJson(req, repo, ref) };
    }),
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/git/blobs',
    handle: (req, state) => withRepo(req, state, (repo) => {
      const { content, encoding = 'utf-8' } = req.body as Body;
      if (typeof content !== 'string' || (encoding !== 'utf-8' && encoding !== 'base64')) {
        // `errors` also keeps this 422 from matching the rule-violation alternative of the oneOf.
        return { status: 422, body: { ...errorBody('Invalid request.', `${DOCS}/blobs#create-a-blob`), errors: [{ resource: 'Blob', field: 'content', code: 'invalid' }] } };
      }
      const sha = repo.objects.putBlob(Buffer.from(content, encoding === 'base64' ? 'base64' : 'utf8'));
      return { status: 201, body: { url: `${repoUrl(req, repo)}/git/blobs/${sha}`, sha }, headers: { location: `${repoUrl(req, repo)}/git/blobs/${sha}` } };
    }),
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/git/blobs/{file_sha}',
    handle: (req, state) => withRepo(req, state, (repo) => {
      const sha = req.params.file_sha!;
      const bytes = repo.objects.blobs.get(sha);
      if (bytes === undefined) return notFound();
      const body = { sha, node_id: `B_${sha}`, size: bytes.length, url: `${repoUrl(req, repo)}/git/blobs/${sha}`, content: wrappedBase64(bytes), encoding: 'base64' };
      return { status: 200, body };
    }),
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/git/trees',
    handle: (req, state) => withRepo(req, state, (repo) => {
      const { tree, base_tree: baseTree } = req.body as Body;
      const docs = `${DOCS}/trees#create-a-tree`;
      if (baseTree !== undefined && (typeof baseTree !== 'string' || !repo.objects.trees.has(baseTree))) return unprocessable('base_tree is not a valid tree oid', docs);
      if (!Array.isArray(tree)) return unprocessable('Invalid tree info', docs);
      const changes: TreeChange[] = [];
      for (const item of tree as Body[]) {
        const { path, mode, type } = item;
        const expectedType = typeof mode === 'string' ? MODES[mode] : undefined;
        if (typeof path !== 'string' || expectedType === undefined || type !== expectedType) return unprocessable('Invalid tree info', docs);
        let sha = item.sha as string | null | undefined;
        if (typeof item.content === 'string') sha = repo.objects.putBlob(Buffer.from(item.content, 'utf8'));
        if (sha === undefined || (sha !== null && expectedType !== 'commit' && repo.objects.type(sha) !== expectedType)) return unprocessable('Invalid tree info', docs);
        changes.push({ path, mode: mode as string, type: expectedType, sha });
      }
      const sha = repo.objects.writeTree((baseTree as string | undefined) ?? null, changes);
      return { status: 201, body: treeJson(req, repo, sha, false), headers: { location: `${repoUrl(req, repo)}/git/trees/${sha}` } };
    }),
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/git/trees/{tree_sha}',
    handle: (req, state) => withRepo(req, state, (repo) => {
      let sha = req.params.tree_sha!;
      sha = repo.objects.commits.get(sha)?.tree ?? sha; // a commit names its tree
      if (!repo.objects.trees.has(sha)) return notFound();
      const recursive = req.query.has('recursive') && !['0', 'false'].includes(req.query.get('recursive')!);
      return { status: 200, body: treeJson(req, repo, sha, recursive) };
    }),
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/git/commits',
    handle: (req, state) => withRepo(req, state, (repo) => {
      const { message, tree, parents = [], author, committer } = req.body as Body;
      const docs = `${DOCS}/commits#create-a-commit`;
      if (typeof message !== 'string') return unprocessable('Invalid request.\n\n"message" wasn\'t supplied.', docs);
      if (typeof tree !== 'string' || !repo.objects.trees.has(tree)) return unprocessable('Tree SHA does not exist', docs);
      if (!Array.isArray(parents) || parents.some((p) => typeof p !== 'string' || !repo.objects.commits.has(p))) {
        return unprocessable('Parent SHA does not exist or is not a commit object', docs);
      }
      const now = isoNow();
      const who = (given: unknown) => {
        const g = (given ?? {}) as Body;
        return { name: String(g.name ?? FAKE_USER.name), email: String(g.email ?? FAKE_USER.email), date: typeof g.date === 'string' ? new Date(g.date).toISOString().replace('.000Z', 'Z') : now };
      };
      const sha = repo.objects.putCommit({ tree, parents: parents as string[], author: who(author), committer: who(committer ?? author), message });
      return { status: 201, body: commitJson(req, repo, sha), headers: { location: `${repoUrl(req, repo)}/git/commits/${sha}` } };
    }),
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/git/commits/{commit_sha}',
    handle: (req, state) => withRepo(req, state, (repo) => {
      const sha = req.params.commit_sha!;
      return repo.objects.commits.has(sha) ? { status: 200, body: commitJson(req, repo, sha) } : notFound();
    }),
  },
];
