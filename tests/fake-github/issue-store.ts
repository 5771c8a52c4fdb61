/**
 * Labels and Issue comments of the fake GitHub (state only; routes-labels.ts serves them).
 * As on GitHub, label names compare case-insensitively, deleting a repository label removes
 * it from every Issue, and comment ids are int64 decimal text.
 */
import type { FakeRequest } from './router.ts';
import { type FakeGitHubState, type FakeRepository } from './state.ts';

export interface FakeLabel {
  id: string;
  name: string;
  color: string;
  description: string | null;
}

export interface FakeComment {
  id: string;
  issueNumber: number;
  body: string;
  createdAt: string;
  updatedAt: string;
}

interface Tables {
  labels: Map<string, Map<string, FakeLabel>>;
  comments: Map<string, Map<string, FakeComment>>;
  nextId: number;
}

const tables = new WeakMap<FakeGitHubState, Tables>();

function t(state: FakeGitHubState): Tables {
  let x = tables.get(state);
  if (x === undefined) tables.set(state, (x = { labels: new Map(), comments: new Map(), nextId: 4_000_000_001 }));
  return x;
}

function repoKey(repo: FakeRepository): string {
  return `${repo.owner}/${repo.name}`.toLowerCase();
}

export function nextFakeId(state: FakeGitHubState): string {
  return String(t(state).nextId++);
}

export function repoLabels(state: FakeGitHubState, repo: FakeRepository): Map<string, FakeLabel> {
  const x = t(state);
  let m = x.labels.get(repoKey(repo));
  if (m === undefined) x.labels.set(repoKey(repo), (m = new Map()));
  return m;
}

export function findLabel(state: FakeGitHubState, repo: FakeRepository, name: string): FakeLabel | undefined {
  return repoLabels(state, repo).get(name.toLowerCase());
}

export function putLabel(state: FakeGitHubState, repo: FakeRepository, name: string, color = 'ededed', description: string | null = null): FakeLabel {
  const label = { id: nextFakeId(state), name, color, description };
  repoLabels(state, repo).set(name.toLowerCase(), label);
  return label;
}

export function repoComments(state: FakeGitHubState, repo: FakeRepository): Map<string, FakeComment> {
  const x = t(state);
  let m = x.comments.get(repoKey(repo));
  if (m === undefined) x.comments.set(repoKey(repo), (m = new Map()));
  return m;
}

/** `label` JSON (a name without a repository label is answered with GitHub's default colour). */
export function labelJson(req: FakeRequest, state: FakeGitHubState, repo: FakeRepository, name: string): Record<string, unknown> {
  const label = findLabel(state, repo, name) ?? { id: '1', name, color: 'ededed', description: null };
  return {
    id: Number(label.id), node_id: `LA_${label.id}`, url: `${req.baseUrl}/repos/${repo.owner}/${repo.name}/labels/${encodeURIComponent(label.name)}`,
    name: label.name, description: label.description, color: label.color, default: false,
  };
}
