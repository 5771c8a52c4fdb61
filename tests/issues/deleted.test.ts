/**
 * Deleted Issues and comments (operator reference "Synchronization and recovery":
 * "Transferred/deleted Issues, deleted immutable comments, exhausted pagination, and uncertain
 * creation remain explicitly pending"). The projector notices a deletion when it writes or
 * reads the target (404/410), records it in the journal, reports it pending from then on at
 * no further cost, and never recreates it: the binding in the ledger is immutable.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../engine/issues/journal.ts';
import { commentBodies } from '../fake-github/routes-labels.ts';
import { deleteIssue, repoIssues, seedIssue } from '../fake-github/routes-issues.ts';
import { issueBench, issuesOf, type IssueBench } from './bench.ts';
import { policyWith, projectorActor, rule } from './rules.ts';

let bench: IssueBench | null = null;
afterEach(async () => {
  await bench?.close();
  bench = null;
});

describe('backing Issues: deleted Issues and comments', () => {
  it('a deleted Issue is noticed when its labels are written: marked missing, pending issue_missing, never recreated; later runs only read it to see whether it is back', async () => {
    bench = await issueBench([{ node_key: 'n', payload: {} }]);
    const first = await bench.projector().sync();
    const number = Number(first.targets[0]!.issue.number);
    deleteIssue(bench.fake.state, bench.repo, number);
    await bench.grant(); // running: the label write finds the Issue gone
    const noticed = await bench.projector({ owner: 'run-2-1' }).sync();
    expect(noticed.targets[0]!.issue.outcome).toBe('issue_missing');
    expect(readJournal((await bench.projector().journal.load()).bytes).entries.get(`issue:${first.targets[0]!.work_id}`)!.missing).toBe(true);
    const later = await bench.projector({ owner: 'run-3-1' }).sync();
    expect(later.targets[0]!.pending).toEqual(['issue_missing']);
    expect(later.targets[0]!.pending_targets).toEqual([`issue:${first.targets[0]!.work_id}`]);
    expect(later.requests).toEqual({ github_reads: 3, github_writes: 0, journal_writes: 0, ledger_publications: 0 }); // labels, feed, one read to see whether it is back
    expect(issuesOf(bench)).toHaveLength(0);
  });

  it('a deleted comment is noticed when its content changes: pending comment_missing, never recreated; the Issue itself stays in sync', async () => {
    bench = await issueBench([{ node_key: 'n', payload: {} }]);
    const first = await bench.projector().sync();
    const number = Number(first.targets[0]!.issue.number);
    const summaryId = first.targets[0]!.comments[0]!.comment_id!;
    const del = await fetch(`${bench.fake.url}/repos/owner/repo/issues/comments/${summaryId}`, { method: 'DELETE', headers: { authorization: 'token t' } });
    expect(del.status).toBe(204);
    await bench.grant(); // the summary's status changes: its update is answered 404
    const noticed = await bench.projector({ owner: 'run-2-1' }).sync();
    const summary = noticed.targets[0]!.comments.find((c) => c.key.startsWith('summary:'))!;
    expect(summary.outcome).toBe('comment_missing');
    expect(noticed.targets[0]!.status).toBe('running');
    expect([...issuesOf(bench)[0]!.labels].sort()).toEqual(['work', 'work:running']);
    const later = await bench.projector({ owner: 'run-3-1' }).sync();
    expect(later.targets[0]!.pending).toEqual([`comment_missing (summary:${first.targets[0]!.work_id})`]);
    expect(commentBodies(bench.fake.state, bench.repo, number).filter((b) => b.includes('### Work status'))).toEqual([]);
    expect(later.requests.github_writes).toBe(0);
    // GitHub answers 404 for a deleted comment, which its OpenAPI description does not document for
    // this operation: the fake's validator flags exactly that one response (and nothing else).
    expect(bench.fake.violations).toEqual([expect.objectContaining({ method: 'PATCH', path: '/repos/{owner}/{repo}/issues/comments/{comment_id}', status: 404 })]);
    bench.fake.violations.length = 0;
  });

  it('a granted pre-existing Issue deleted before its first projection is read directly, found missing and left pending', async () => {
    const issue = (id: number) => ({ kind: 'issue', host: 'github.com', repository: 'owner/other', repository_id: String(id), resource_id: '880009', number: '9' });
    bench = await issueBench([{ node_key: 'seed', payload: {} }], { policy: (other) => policyWith([rule({ backing_issues: [issue(other.id) as never] })]) });
    seedIssue(bench.fake.state, bench.other, { number: 9, id: '880009' });
    await bench.submit([{ node_key: 'backed', payload: {}, backing_issue: issue(bench.other.id) }]);
    deleteIssue(bench.fake.state, bench.other, 9);
    const report = await bench.projector({ actor: projectorActor }).sync();
    const backed = report.targets.find((t) => t.repository === 'owner/other')!;
    expect(backed.pending).toEqual(['issue_missing']);
    expect(repoIssues(bench.fake.state, bench.other)).toHaveLength(0);
    expect(bench.fake.requests.some((r) => r.method === 'GET' && r.template === '/repos/{owner}/{repo}/issues/{issue_number}')).toBe(true);
  });
});
