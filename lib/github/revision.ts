/**
 * Host facts of a worker Deployment (spec 7.10): the repository's verified immutable
 * default revision and whether the profile's workflow file exists there. Read from the
 * GitHub API of the queue repository, or from a local clone's default branch. Permission,
 * rate-limit and transport errors propagate (they must not publish "unavailable"); only a
 * missing workflow file makes the revision unavailable.
 */
import { z } from 'zod';
import { ProtocolError } from '../../engine/errors.ts';
import { git } from '../store/git-cli.ts';
import { readFileAt, resolveRef } from '../store/git-objects.ts';
import { readStatusOf, type GitHubApi } from './api.ts';
import { coordsOf } from './runs.ts';
import { RepositorySchema } from './schemas.ts';

export interface WorkerRevision {
  /** Immutable commit of the default branch. */
  ref: string;
  branch: string;
  /** The workflow file exists at `ref`. */
  available: boolean;
}

const RefSchema = z.object({ object: z.object({ sha: z.string(), type: z.string() }) });
const ContentSchema = z.object({ type: z.string(), path: z.string() });

/** The repository's default branch (where workers are dispatched unless told otherwise). */
export async function defaultBranch(api: GitHubApi, repository: string): Promise<string> {
  const repo = await api.get('/repos/{owner}/{repo}', coordsOf(repository), RepositorySchema, `read repository ${repository}`);
  if (repo.default_branch === undefined) throw new ProtocolError('github_response_invalid', `${repository} reports no default branch`);
  return repo.default_branch;
}

export async function githubRevision(api: GitHubApi, repository: string, workflow: string): Promise<WorkerRevision> {
  const where = coordsOf(repository);
  const repo = await api.get('/repos/{owner}/{repo}', where, RepositorySchema, `read repository ${repository}`);
  const branch = repo.default_branch;
  if (branch === undefined) throw new ProtocolError('github_response_invalid', `${repository} reports no default branch`);
  const ref = await api.get('/repos/{owner}/{repo}/git/ref/{ref}', { ...where, ref: `heads/${branch}` }, RefSchema, `read ${branch} of ${repository}`);
  if (ref.object.type !== 'commit') throw new ProtocolError('github_response_invalid', `refs/heads/${branch} does not point at a commit`);
  try {
    const file = await api.get('/repos/{owner}/{repo}/contents/{path}', { ...where, path: workflow, ref: ref.object.sha }, ContentSchema, `read ${workflow}`);
    return { ref: ref.object.sha, branch, available: file.type === 'file' };
  } catch (e) {
    if (readStatusOf(e) === 'not_found') return { ref: ref.object.sha, branch, available: false };
    throw e;
  }
}

export async function localRevision(repo: string, workflow: string): Promise<WorkerRevision> {
  const ctx = { cwd: repo };
  const head = await git(ctx, ['symbolic-ref', '-q', 'HEAD']);
  const target = head.code === 0 ? head.stdout.toString('utf8').trim() : '';
  const sha = target === '' ? null : await resolveRef(ctx, target);
  if (sha === null) throw new ProtocolError('revision_unavailable', `${repo} has no default branch commit`);
  return { ref: sha, branch: target.replace(/^refs\/heads\//, ''), available: (await readFileAt(ctx, sha, workflow)) !== null };
}
