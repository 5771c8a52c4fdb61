/**
 * Cross-repository projection and pre-existing backing Issues (operator reference "Backing
 * Issues": "Automatic projection targets the queue repository and the Work pool's allowed
 * repositories; no global scan ... Even AW-managed queues require explicit exact
 * backing_issues grants for pre-existing Issues and explicit projector authority for
 * cross-repository projection"). Two repositories on the fake GitHub: the queue's
 * `owner/repo` and `owner/other`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import { backingIssue } from '../../lib/console/views/backing-issue.ts';
import { commentBodies } from '../fake-github/routes-labels.ts';
import { findLabel } from '../fake-github/issue-store.ts';
import { repoIssues, seedIssue } from '../fake-github/routes-issues.ts';
import type { FakeRepository } from '../fake-github/state.ts';
import { issueBench, issuesOf, type IssueBench } from './bench.ts';
import { policyWith, projectorActor, rule } from './rules.ts';

let bench: IssueBench | null = null;
afterEach(async () => {
  await bench?.close();
  bench = null;
});

/** Issue #5 of owner/other as its full resource identity. */
const issue5 = (other: FakeRepository): JsonObject => ({ kind: 'issue', host: 'github.com', repository: 'owner/other', repository_id: String(other.id), resource_id: '880005', number: '5' });

async function backedBench(grant: boolean): Promise<IssueBench> {
  const b = await issueBench([{ node_key: 'plain', payload: { title: 'Plain work' } }], {
    policy: (other) => policyWith([rule(grant ? { backing_issues: [issue5(other) as never] } : {})]),
  });
  seedIssue(b.fake.state, b.other, { number: 5, id: '880005', title: 'Human title', body: 'Human body', labels: ['bug'] });
  return b;
}

describe('backing Issues: pre-existing Issues and two repositories', () => {
  it('a Work naming a granted pre-existing Issue in another repository is linked to it instead of creating one', async () => {
    bench = await backedBench(true);
    await bench.submit([{ node_key: 'backed', payload: { title: 'Backed work' }, backing_issue: issue5(bench.other) }]);
    const report = await bench.projector({ actor: projectorActor }).sync();
    const byKey = new Map((await bench.projection()).works() ? [...(await bench.projection()).works()].map((w) => [w.nodeKey, w.workId]) : []);
    const backed = report.targets.find((t) => t.work_id === byKey.get('backed'))!;
    expect(backed).toMatchObject({ repository: 'owner/other', status: 'queued', pending: [], issue: { number: '5', action: 'labels' } });
    expect(report.repositories.sort()).toEqual(['owner/other', 'owner/repo']);
    // Only the plain Work got a new Issue (in the queue repository); none was created in owner/other.
    expect(issuesOf(bench).map((i) => i.title)).toEqual(['Plain work']);
    const [five] = repoIssues(bench.fake.state, bench.other);
    expect(repoIssues(bench.fake.state, bench.other)).toHaveLength(1);
    expect([...five!.labels].sort()).toEqual(['bug', 'work', 'work:queued']);
    expect(five!.title).toBe('Human title'); // the human title and body are never replaced
    expect(five!.body).toBe('Human body');
    expect(commentBodies(bench.fake.state, bench.other, 5)[0]).toContain('### Work status: queued');
    expect(findLabel(bench.fake.state, bench.other, 'work:needs-review')!.color).toBe('7057FF');
    // The ledger binds the summary comment (no IssueLink: the Issue was bound at admission); it replays.
    const replayed = await bench.replayValid();
    expect(replayed.state.issueLinks.get(byKey.get('backed')!)!.map((r) => r.kind)).toEqual(['IssueComment']);
    expect(backingIssue(replayed, byKey.get('backed')!)).toMatchObject({ repository: 'owner/other', number: '5', url: 'https://github.com/owner/other/issues/5', comments: 1 });

    // Lifecycle: its labels follow the Work in owner/other, and a second run changes nothing (4 reads: labels and feed per repository).
    await bench.grant();
    await bench.grant();
    await bench.projector({ actor: projectorActor, owner: 'run-2-1' }).sync();
    expect([...five!.labels].sort()).toEqual(['bug', 'work', 'work:running']);
    const quiet = await bench.projector({ actor: projectorActor, owner: 'run-3-1' }).sync();
    expect(quiet.requests).toEqual({ github_reads: 4, github_writes: 0, journal_writes: 0, ledger_publications: 0 });
  });

  it('never linked without a grant: admission refuses the Work (resource_unauthorized) and nothing reaches the Issue', async () => {
    bench = await backedBench(false);
    await expect(bench.submit([{ node_key: 'backed', payload: {}, backing_issue: issue5(bench.other) }])).rejects.toMatchObject({ code: 'resource_unauthorized' });
    expect([...(await bench.projection()).works()].map((w) => w.nodeKey)).toEqual(['plain']);
    await bench.projector({ actor: projectorActor }).sync();
    const [five] = repoIssues(bench.fake.state, bench.other);
    expect(five!.labels).toEqual(['bug']);
    expect(commentBodies(bench.fake.state, bench.other, 5)).toEqual([]);
  });

  it('a run no rule names has no target authority there: projector_not_authorized, and no request reaches the other repository', async () => {
    bench = await backedBench(true);
    await bench.submit([{ node_key: 'backed', payload: {}, backing_issue: issue5(bench.other) }]);
    const before = bench.fake.requests.length;
    const report = await bench.projector().sync(); // the reconciler without a workflow identity
    const backed = report.targets.find((t) => t.repository === 'owner/other')!;
    expect(backed.pending).toEqual(['projector_not_authorized']);
    expect(report.repositories).toEqual(['owner/repo']);
    expect(bench.fake.requests.slice(before).filter((r) => r.path.includes('/owner/other'))).toEqual([]);
    expect(repoIssues(bench.fake.state, bench.other)[0]!.labels).toEqual(['bug']);
  });
});
