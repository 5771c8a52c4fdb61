/**
 * Crash safety of backing-Issue creation (operator reference "Synchronization and recovery"):
 * the intent is durable before the mutation is sent; a crash before sending and a crash after
 * GitHub accepted the write are indistinguishable and both stay pending, with no duplicate
 * Issue; a lost response is never retried; only a proven pre-execution rate-limit rejection
 * is retried (by Octokit's throttling plugin); one Work per Issue under concurrent projectors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../engine/issues/journal.ts';
import { resolvePending } from '../../lib/issues/resolve.ts';
import { commentBodies } from '../fake-github/routes-labels.ts';
import { issueBench, issuesOf, labelsOf, type IssueBench } from './bench.ts';

let bench: IssueBench | null = null;
afterEach(async () => {
  await bench?.close();
  bench = null;
});

const nodes = [{ node_key: 'n1', payload: { title: 'One task' } }];
const CREATE = { method: 'POST', path: '/repos/{owner}/{repo}/issues' };

function creations(b: IssueBench): number {
  return b.fake.requests.filter((r) => r.method === 'POST' && r.template === CREATE.path).length;
}

describe('backing Issues: crash windows', () => {
  it('crash after the intent, before sending: the next hook reports pending and creates nothing', async () => {
    bench = await issueBench(nodes);
    await expect(bench.projector().sync({ afterIntents: () => { throw new Error('crash'); } })).rejects.toThrow('crash');
    expect(creations(bench)).toBe(0);
    const next = await bench.projector({ owner: 'run-2-1' }).sync();
    expect(next.targets[0]!.pending).toEqual(['issue_creation_uncertain']);
    expect(creations(bench)).toBe(0);
    expect(issuesOf(bench)).toHaveLength(0);
    const again = await bench.projector({ owner: 'run-3-1' }).sync();
    expect(again.targets[0]!.pending).toEqual(['issue_creation_uncertain']);
    expect(issuesOf(bench)).toHaveLength(0);
  });

  it('crash after GitHub accepted the write, before the receipt: pending, exactly one Issue, never recreated', async () => {
    bench = await issueBench(nodes);
    bench.fake.inject({ ...CREATE, kind: 'drop-after' });
    const first = await bench.projector().sync();
    expect(first.targets[0]!.issue.outcome).toBe('uncertain_no_response');
    expect(issuesOf(bench)).toHaveLength(1); // it exists, but nobody holds its receipt
    for (const owner of ['run-2-1', 'run-3-1']) {
      const next = await bench.projector({ owner }).sync();
      expect(next.targets[0]!.pending).toEqual(['issue_creation_uncertain']);
    }
    expect(issuesOf(bench)).toHaveLength(1);
    expect(creations(bench)).toBe(1);
    // No binding was published for an unreceipted creation.
    expect((await bench.replayValid()).state.issueLinks.size).toBe(0);
  });

  it('a lost response (the write hangs past its timeout) is not retried and stays pending', async () => {
    bench = await issueBench(nodes);
    bench.fake.inject({ ...CREATE, kind: 'hang', process: true });
    const first = await bench.projector({ client: { timeouts: { readMs: 15000, writeMs: 400 } } }).sync();
    expect(first.targets[0]!.pending).toEqual(['issue_creation_uncertain']);
    expect(creations(bench)).toBe(1);
    expect(issuesOf(bench)).toHaveLength(1);
  });

  it('a 5xx answer to a creation is ambiguous: pending, not retried', async () => {
    bench = await issueBench(nodes);
    bench.fake.inject({ ...CREATE, kind: 'status', status: 502, process: true });
    const first = await bench.projector().sync();
    expect(first.targets[0]!.issue.outcome).toBe('uncertain_http_502');
    expect(creations(bench)).toBe(1);
    const next = await bench.projector({ owner: 'run-2-1' }).sync();
    expect(next.targets[0]!.pending).toEqual(['issue_creation_uncertain']);
    expect(creations(bench)).toBe(1);
  });

  it('secondary rate limit: the proven pre-execution rejection is retried by the throttling plugin, once created', async () => {
    bench = await issueBench(nodes);
    bench.fake.inject({
      ...CREATE, kind: 'status', status: 403, headers: { 'retry-after': '1' },
      body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest' },
    });
    const report = await bench.projector().sync();
    expect(report.targets[0]!.issue.outcome).toBe('created');
    expect(creations(bench)).toBe(2); // rejected, then retried
    expect(issuesOf(bench)).toHaveLength(1);
    expect(report.targets[0]!.pending).toEqual([]);
  });

  it('an exhausted rate limit releases the intent (GitHub did not execute), stops further writes, and a later hook creates it', async () => {
    bench = await issueBench([...nodes, { node_key: 'n2', payload: {} }]);
    bench.fake.inject({
      ...CREATE, kind: 'status', status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) },
      body: { message: 'API rate limit exceeded for installation.', documentation_url: 'https://docs.github.com/rest' },
    });
    const report = await bench.projector().sync();
    expect(report.stopped).toMatch(/rate limit/);
    expect(report.targets.map((t) => t.issue.outcome)).toEqual(['rejected_rate_limited', 'not_sent_rate_limit_exhausted']);
    expect(creations(bench)).toBe(1); // not retried (the reset is an hour away), and n2 never sent
    const journal = readJournal((await bench.projector().journal.load()).bytes);
    expect([...journal.entries.values()].filter((e) => e.target === 'issue').map((e) => e.phase)).toEqual(['released', 'released']);
    const later = await bench.projector({ owner: 'run-2-1' }).sync();
    expect(later.targets.map((t) => t.issue.outcome)).toEqual(['created', 'created']);
    expect(issuesOf(bench)).toHaveLength(2);
  });

  it('one Work per Issue under two concurrent projectors', async () => {
    bench = await issueBench(nodes);
    const [a, b] = await Promise.all([bench.projector({ owner: 'run-A-1' }).sync(), bench.projector({ owner: 'run-B-1' }).sync()]);
    expect(issuesOf(bench)).toHaveLength(1);
    expect(creations(bench)).toBe(1);
    const outcomes = [a.targets[0]!.issue.outcome, b.targets[0]!.issue.outcome].sort();
    expect(outcomes[0]).toBe('another_projector_holds_intent');
    expect(outcomes[1]).toBe('created');
    const replayed = await bench.replayValid();
    expect([...replayed.state.issueLinks.values()].flat().filter((r) => r.kind === 'IssueLink')).toHaveLength(1);
  });

  it('a failed read of the repository before the first creation strands no intent: nothing pending, the next sync creates each Issue once', async () => {
    bench = await issueBench([...nodes, { node_key: 'n2', payload: {} }]);
    bench.fake.inject({ method: 'GET', path: '/repos/{owner}/{repo}', kind: 'status', status: 500, body: { message: 'Server Error' } });
    await expect(bench.projector().sync()).rejects.toMatchObject({ code: 'github_request_failed' });
    expect(creations(bench)).toBe(0);
    const journal = readJournal((await bench.projector().journal.load()).bytes);
    expect([...journal.entries.values()].filter((e) => e.phase === 'pending')).toEqual([]);
    const next = await bench.projector({ owner: 'run-2-1' }).sync();
    expect(next.targets.map((t) => [t.issue.outcome, t.pending])).toEqual([['created', []], ['created', []]]);
    expect(issuesOf(bench)).toHaveLength(2);
  });

  it('operator resolution: adopting the Issue a lost answer created binds it (checked), with no duplicate', async () => {
    bench = await issueBench([...nodes, { node_key: 'n2', payload: {} }]);
    bench.fake.inject({ ...CREATE, kind: 'drop-after' });
    const report = await bench.projector().sync();
    const [lost, other] = report.targets;
    expect(lost!.pending_targets).toEqual([`issue:${lost!.work_id}`]);
    expect(other!.pending).toEqual([]);
    const orphan = issuesOf(bench).find((i) => i.number !== Number(other!.issue.number))!;
    const p = bench.projector({ owner: 'operator' });
    // Checked adoption: not another Work's Issue, not a missing number.
    await expect(resolvePending({ journal: p.journal, client: p.client, principal: '1001' }, `issue:${lost!.work_id}`, { kind: 'adopt_issue', number: Number(other!.issue.number) })).rejects.toMatchObject({ code: 'issues_adopt_invalid' });
    await expect(resolvePending({ journal: p.journal, client: p.client, principal: '1001' }, `issue:${lost!.work_id}`, { kind: 'adopt_issue', number: 99 })).rejects.toMatchObject({ code: 'issues_adopt_invalid' });
    const adopted = await resolvePending({ journal: p.journal, client: p.client, principal: '1001' }, `issue:${lost!.work_id}`, { kind: 'adopt_issue', number: orphan.number });
    expect(adopted.resolution).toBe('adopted');
    await expect(resolvePending({ journal: p.journal, client: p.client, principal: '1001' }, `issue:${lost!.work_id}`, { kind: 'not_created' })).rejects.toMatchObject({ code: 'issues_not_pending' });
    const next = await bench.projector({ owner: 'run-2-1' }).sync();
    expect(next.targets.every((t) => t.pending.length === 0)).toBe(true);
    expect(issuesOf(bench)).toHaveLength(2);
    expect(labelsOf(bench, orphan.number)).toEqual(['work', 'work:queued']);
    expect(commentBodies(bench.fake.state, bench.repo, orphan.number)).toHaveLength(1);
    const links = (await bench.replayValid()).state.issueLinks.get(lost!.work_id)!;
    expect((links.find((r) => r.kind === 'IssueLink')!.resource as { number: string }).number).toBe(String(orphan.number));
  });

  it('operator resolution --not-created: after a crash before sending, the next sync creates the Issue once', async () => {
    bench = await issueBench(nodes);
    await expect(bench.projector().sync({ afterIntents: () => { throw new Error('crash'); } })).rejects.toThrow('crash');
    const p = bench.projector({ owner: 'operator' });
    const workId = (await bench.projection()).works().next().value!.workId;
    await resolvePending({ journal: p.journal, client: p.client, principal: '1001' }, `issue:${workId}`, { kind: 'not_created' });
    const next = await bench.projector({ owner: 'run-2-1' }).sync();
    expect(next.targets[0]!.issue.outcome).toBe('created');
    expect(issuesOf(bench)).toHaveLength(1);
  });

  it('a comment creation whose answer is lost stays pending: no duplicate comment, the Issue itself stays in sync', async () => {
    bench = await issueBench(nodes);
    bench.fake.inject({ method: 'POST', path: '/repos/{owner}/{repo}/issues/{issue_number}/comments', kind: 'drop-after' });
    const first = await bench.projector().sync();
    const [issue] = issuesOf(bench);
    expect(commentBodies(bench.fake.state, bench.repo, issue!.number)).toHaveLength(1); // GitHub has it
    expect(first.targets[0]!.pending_targets).toEqual([`summary:${first.targets[0]!.work_id}`]);
    const g = await bench.grant();
    await bench.bind(g.dispatchId, '9100');
    const next = await bench.projector({ owner: 'run-2-1' }).sync();
    expect(next.targets[0]!.pending).toEqual([`comment_creation_uncertain (summary:${g.workId})`]);
    expect(labelsOf(bench, issue!.number)).toEqual(['work', 'work:running']);
    // The summary was not re-sent; the new Claim's comment was created once.
    expect(commentBodies(bench.fake.state, bench.repo, issue!.number)).toHaveLength(2);
  });
});
