/**
 * The commit history (docs/console.md "Pages" `/commits`): paginated, newest first, each a
 * time-travel link; and a comparison of two commits — what the commits in
 * between admitted, granted, finished, released and controlled, plus the
 * state counts at both ends.
 */
import type { JsonObject } from '../../../engine/json.ts';
import { summarize, type Projection, type ProjectionSummary } from '../../../engine/replay/index.ts';
import type { CommitInfo } from '../../../engine/replay/index.ts';
import { operationSummary, type OperationSummary } from './operations.ts';

export const COMMITS_PAGE = 50;
/** Commits whose operations a comparison lists one by one; beyond it only the tallies. */
const MAX_LISTED_OPERATIONS = 400;
const MAX_COMPARED_COMMITS = 50_000;

export interface CommitsPage {
  commits: CommitInfo[];
  page: number;
  pages: number;
  total: number;
}

export function commitsPage(projection: Projection, page: number): CommitsPage {
  const all = projection.commits;
  const pages = Math.max(1, Math.ceil(all.length / COMMITS_PAGE));
  const p = Math.min(Math.max(1, page), pages);
  const endExclusive = all.length - (p - 1) * COMMITS_PAGE;
  const start = Math.max(0, endExclusive - COMMITS_PAGE);
  return { commits: all.slice(start, endExclusive).reverse(), page: p, pages, total: all.length };
}

export type ChangeGroup = 'admitted' | 'granted' | 'launched' | 'finished' | 'results' | 'released' | 'observed' | 'controls' | 'other';

const GROUP_OF: Record<string, ChangeGroup> = {
  Work: 'admitted',
  Claim: 'granted',
  Dispatch: 'launched',
  Observation: 'observed',
  Completion: 'finished',
  ClaimCancellation: 'finished',
  WorkCancellation: 'finished',
  Result: 'results',
  DeliveryFailure: 'results',
  Release: 'released',
  Control: 'controls',
  WorkPriority: 'controls',
  Policy: 'controls',
  Deployment: 'controls',
};

export interface Comparison {
  from: CommitInfo;
  to: CommitInfo;
  commits: number;
  tally: Record<ChangeGroup, number>;
  byKind: Record<string, number>;
  listed: Array<OperationSummary & { commitId: string; at: number; group: ChangeGroup }>;
  truncated: boolean;
  before: ProjectionSummary;
  after: ProjectionSummary;
}

/** Compare prefix `from` with prefix `to` (either order; the earlier one is the base). */
export function compareCommits(live: Projection, fromProjection: Projection, toProjection: Projection): Comparison {
  let a = fromProjection;
  let b = toProjection;
  if (a.commits.length > b.commits.length) [a, b] = [b, a];
  const fromIndex = a.commits.length - 1;
  const toIndex = b.commits.length - 1;
  const tally: Record<ChangeGroup, number> = { admitted: 0, granted: 0, launched: 0, finished: 0, results: 0, released: 0, observed: 0, controls: 0, other: 0 };
  const byKind: Record<string, number> = {};
  const listed: Comparison['listed'] = [];
  let truncated = false;
  const last = Math.min(toIndex, fromIndex + MAX_COMPARED_COMMITS);
  for (let i = fromIndex + 1; i <= last; i++) {
    const info = live.commits[i]!;
    const ops = (JSON.parse(live.commitText(info.id)!) as { operations: JsonObject[] }).operations;
    for (const op of ops) {
      const kind = String(op.kind);
      const group = GROUP_OF[kind] ?? 'other';
      tally[group] += 1;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
      if (listed.length < MAX_LISTED_OPERATIONS) listed.push({ ...operationSummary(b, op), commitId: info.id, at: info.at, group });
      else truncated = true;
    }
  }
  return {
    from: live.commits[fromIndex]!,
    to: live.commits[toIndex]!,
    commits: toIndex - fromIndex,
    tally,
    byKind,
    listed,
    truncated: truncated || last < toIndex,
    before: summarize(a),
    after: summarize(b),
  };
}
