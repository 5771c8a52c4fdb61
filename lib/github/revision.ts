/**
 * Host facts of a worker Deployment (spec 7.10): the repository's verified immutable
 * default revision and whether the profile's workflow file exists there. Read from the
 * GitHub API of the queue repository, or from a local clone's default branch. Permission,
 * rate-limit and transport errors propagate (they must not publish "unavailable"); only a
 * workflow that is missing or does not declare the `work_queue_assignment` input
 * (lib/config/workers.ts) makes the revision unavailable.
 */
import { z } from 'zod';
import { ProtocolError } from '../../engine/errors.ts';
import { git } from '../store/git-cli.ts';
import { readFileAt, resolveRef } from '../store/git-objects.ts';
import { readStatusOf, type GitHubApi } from './api.ts';
import { coordsOf } from './runs.ts';
import { RepositorySchema } from './schemas.ts';
import { verifyWorkerWorkflow, WORKFLOWS_DIR, type RevisionSource } from '../config/workers.ts';

export interface WorkerRevision {
  /** Immutable commit of the default branch. */
  ref: string;
  branch: string;
  /** The workflow file exists at `ref`. */
  available: boolean;
}

const RefSchema = z.object({ object: z.object({ sha: z.string(), type: z.string() }) });
const ContentSchema = z.object({ type: z.string(), path: z.string(), sha: z.string(), content: z.string().optional(), encoding: z.string().optional() });
const BlobSchema = z.object({ content: z.string(), encoding: z.string() });
const DirectorySchema = z.array(z.object({ type: z.string(), name: z.string() }));

/** The repository's default branch (where workers are dispatched unless told otherwise). */
export async function defaultBranch(api: GitHubApi, repository: string): Promise<string> {
  const repo = await api.get('/repos/{owner}/{repo}', coordsOf(repository), RepositorySchema, `read repository ${repository}`);
  if (repo.default_branch === undefined) throw new ProtocolError('github_response_invalid', `${repository} reports no default branch`);
  return repo.default_branch;
}

/** The queue repository's default branch at its verified tip, read through the GitHub API. */
export async function githubSource(api: GitHubApi, repository: string): Promise<RevisionSource & { branch: string }> {
  const where = coordsOf(repository);
  const branch = await defaultBranch(api, repository);
  const head = await api.get('/repos/{owner}/{repo}/git/ref/{ref}', { ...where, ref: `heads/${branch}` }, RefSchema, `read ${branch} of ${repository}`);
  if (head.object.type !== 'commit') throw new ProtocolError('github_response_invalid', `refs/heads/${branch} does not point at a commit`);
  const ref = head.object.sha;
  const readFile = async (path: string): Promise<Uint8Array | null> => {
    let file: z.infer<typeof ContentSchema>;
    try {
      file = await api.get('/repos/{owner}/{repo}/contents/{path}', { ...where, path, ref }, ContentSchema, `read ${path}`);
    } catch (e) {
      if (readStatusOf(e) === 'not_found') return null;
      throw e;
    }
    if (file.type !== 'file') return null;
    if (file.encoding === 'base64' && file.content !== undefined) return new Uint8Array(Buffer.from(file.content, 'base64'));
    const blob = await api.get('/repos/{owner}/{repo}/git/blobs/{file_sha}', { ...where, file_sha: file.sha }, BlobSchema, `read ${path}`);
    if (blob.encoding !== 'base64') throw new ProtocolError('github_response_invalid', `unexpected blob encoding ${blob.encoding} for ${path}`);
    return new Uint8Array(Buffer.from(blob.content, 'base64'));
  };
  const listWorkflows = async (): Promise<string[]> => {
    try {
      const dir = await api.get('/repos/{owner}/{repo}/contents/{path}', { ...where, path: WORKFLOWS_DIR, ref }, DirectorySchema, `list ${WORKFLOWS_DIR}`);
      return dir.filter((e) => e.type === 'file').map((e) => e.name);
    } catch (e) {
      if (readStatusOf(e) === 'not_found') return [];
      throw e;
    }
  };
  return { ref, branch, readFile, listWorkflows };
}

/** A local clone's default branch (the branch HEAD names) at its tip. */
export async function localSource(repo: string): Promise<RevisionSource & { branch: string }> {
  const ctx = { cwd: repo };
  const head = await git(ctx, ['symbolic-ref', '-q', 'HEAD']);
  const target = head.code === 0 ? head.stdout.toString('utf8').trim() : '';
  const sha = target === '' ? null : await resolveRef(ctx, target);
  if (sha === null) throw new ProtocolError('revision_unavailable', `${repo} has no default branch commit`);
  return {
    ref: sha,
    branch: target.replace(/^refs\/heads\//, ''),
    readFile: (path) => readFileAt(ctx, sha, path),
    listWorkflows: async () => {
      const r = await git(ctx, ['ls-tree', '-z', '--name-only', `${sha}:${WORKFLOWS_DIR}`]);
      if (r.code !== 0) return [];
      return r.stdout.toString('utf8').split('\0').filter((n) => n !== '');
    },
  };
}

/** Revision facts of one profile: available iff its workflow is a verified worker at the tip. */
async function revisionOf(source: RevisionSource & { branch: string }, workflow: string): Promise<WorkerRevision> {
  return { ref: source.ref, branch: source.branch, available: (await verifyWorkerWorkflow(source, workflow)) === 'available' };
}

export async function githubRevision(api: GitHubApi, repository: string, workflow: string): Promise<WorkerRevision> {
  return revisionOf(await githubSource(api, repository), workflow);
}

export async function localRevision(repo: string, workflow: string): Promise<WorkerRevision> {
  return revisionOf(await localSource(repo), workflow);
}
