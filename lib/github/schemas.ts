/**
 * The parts of GitHub's REST responses Fairway relies on, as zod schemas over
 * lossless-parsed bodies (json.ts). Objects are open (GitHub adds fields), but every
 * member used for a decision is required and typed: a missing `merged` or `state_reason`
 * is an invalid or unknown read, never a default.
 */
import { z } from 'zod';
import { GitHubId, GitHubInt } from './json.ts';

const Account = z.object({ id: GitHubId, login: z.string() });

export const RepositorySchema = z.object({ id: GitHubId, full_name: z.string(), default_branch: z.string().optional(), url: z.string().optional() });
export type GitHubRepository = z.infer<typeof RepositorySchema>;

/** `GET /repos/{owner}/{repo}/git/ref/{ref}`: one exact reference. */
export const GitRefSchema = z.object({ ref: z.string(), object: z.object({ sha: z.string() }) });

export const IssueSchema = z.object({
  id: GitHubId,
  number: GitHubInt,
  state: z.enum(['open', 'closed']),
  state_reason: z.string().nullable().optional(),
  updated_at: z.string(),
  /** The API URL of the repository that holds the Issue now (a transferred Issue names its new one). */
  repository_url: z.string(),
  /** Present when the number is a Pull Request. */
  pull_request: z.object({ url: z.string().nullable().optional() }).optional(),
});
export type GitHubIssue = z.infer<typeof IssueSchema>;

export const PullSchema = z.object({
  id: GitHubId,
  number: GitHubInt,
  state: z.enum(['open', 'closed']),
  merged: z.boolean(),
  merge_commit_sha: z.string().nullable(),
  merged_at: z.string().nullable(),
  updated_at: z.string(),
  base: z.object({ repo: z.object({ id: GitHubId, full_name: z.string() }) }),
});
export type GitHubPull = z.infer<typeof PullSchema>;

export const WorkflowRunSchema = z.object({
  id: GitHubId,
  run_attempt: GitHubInt,
  path: z.string(),
  head_sha: z.string(),
  event: z.string(),
  status: z.string().nullable(),
  conclusion: z.string().nullable(),
  display_title: z.string(),
  created_at: z.string(),
  actor: Account,
  triggering_actor: Account.nullable().optional(),
  repository: z.object({ id: GitHubId, full_name: z.string() }),
});
export type GitHubRun = z.infer<typeof WorkflowRunSchema>;

export const RunListSchema = z.object({ total_count: GitHubInt, workflow_runs: z.array(WorkflowRunSchema) });

/** API version 2026-03-10 `workflow_dispatch` success body (spec 7.8). */
export const DispatchResponseSchema = z.object({
  workflow_run_id: GitHubId,
  run_url: z.url(),
  html_url: z.url(),
});
