/**
 * Request counts of the backing-Issue projector (operator reference: the reference needs
 * seven requests for 25 unchanged existing Issues, five reads and two batched coordination
 * mutations, no Issue writes). Counted on the fake GitHub, which records every request.
 * Here the ledger and the journal are local Git branches (no HTTP); on the GitHub GraphQL
 * store each is one more read request (github-graphql.ts: one query per checked read).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../engine/issues/journal.ts';
import { seedIssue } from '../fake-github/routes-issues.ts';
import { issueBench, issuesOf, type IssueBench } from './bench.ts';

let bench: IssueBench | null = null;
afterEach(async () => {
  await bench?.close();
  bench = null;
});

describe('backing Issues: request counts', () => {
  it('25 unchanged Issues: two GitHub reads (labels, change feed), no writes, no journal or ledger writes', async () => {
    bench = await issueBench(Array.from({ length: 25 }, (_, i) => ({ node_key: `n${i + 1}`, payload: { title: `Task ${i + 1}` } })));
    const created = await bench.projector().sync();
    expect(issuesOf(bench)).toHaveLength(25);
    expect(created.targets.every((t) => t.pending.length === 0)).toBe(true);
    // Creating 25: 8 labels, 25 Issues and 25 summaries, in three journal writes and one ledger publication.
    expect(created.requests).toMatchObject({ github_writes: 8 + 25 + 25, journal_writes: 3, ledger_publications: 1 });

    const before = bench.fake.requests.length;
    const unchanged = await bench.projector({ owner: 'run-2-1' }).sync();
    const sent = bench.fake.requests.slice(before);
    expect(sent.map((r) => `${r.method} ${r.template}`)).toEqual(['GET /repos/{owner}/{repo}/labels', 'GET /repos/{owner}/{repo}/issues']);
    expect(unchanged.requests).toEqual({ github_reads: 2, github_writes: 0, journal_writes: 0, ledger_publications: 0 });
    expect(unchanged.targets.every((t) => t.issue.action === 'none' && t.comments.every((c) => c.action === 'none'))).toBe(true);
  });

  it('25 unchanged Issues with the ledger and journal on GitHub (GraphQL store): four requests in all, all reads', async () => {
    bench = await issueBench(Array.from({ length: 25 }, (_, i) => ({ node_key: `n${i + 1}`, payload: {} })), { store: 'graphql' });
    await bench.projector().sync();
    expect(issuesOf(bench)).toHaveLength(25);
    const before = bench.fake.requests.length;
    const unchanged = await bench.projector({ owner: 'run-2-1' }).sync();
    const sent = bench.fake.requests.slice(before).map((r) => `${r.method} ${r.template}${r.operation === undefined ? '' : ` ${r.operation}`}`);
    expect(sent).toHaveLength(4);
    expect(sent.filter((r) => r.startsWith('POST /graphql'))).toHaveLength(2); // ledger read, journal read
    expect(sent.filter((r) => r.startsWith('GET '))).toEqual(['GET /repos/{owner}/{repo}/labels', 'GET /repos/{owner}/{repo}/issues']);
    expect(unchanged.requests.github_writes + unchanged.requests.journal_writes + unchanged.requests.ledger_publications).toBe(0);
  });

  it('more than 25 targets: the first 25 are projected, the rest deferred', async () => {
    bench = await issueBench(Array.from({ length: 27 }, (_, i) => ({ node_key: `n${i + 1}`, payload: {} })));
    const report = await bench.projector().sync({ dryRun: true });
    expect(report.targets).toHaveLength(25);
    expect(report.deferred).toHaveLength(2);
    expect(issuesOf(bench)).toHaveLength(0); // a dry run writes nothing
    expect(report.would.filter((w) => w.method === 'POST' && w.what.startsWith('create issue'))).toHaveLength(25);
  });
});

describe('backing Issues: the change-feed watermark', () => {
  it('a scoped run (one Work of two) keeps a human edit of the other Issue as a seen snapshot while the watermark moves, so a later run still repairs it', async () => {
    bench = await issueBench([{ node_key: 'a', payload: {} }, { node_key: 'b', payload: {} }]);
    await bench.projector().sync();
    const [ia, ib] = issuesOf(bench);
    const works = [...(await bench.projection()).works()];
    // A human removes b's status label; then a hook projects only a (after a's status changed).
    await fetch(`${bench.fake.url}/repos/owner/repo/issues/${ib!.number}/labels/${encodeURIComponent('work:queued')}`, { method: 'DELETE', headers: { authorization: 'token t' } });
    // ... at the journal's watermark exactly: visible to a feed since it, not to a later one.
    const watermark = readJournal((await bench.projector().journal.load()).bytes).watermarks.get('owner/repo')!;
    ib!.updatedAt = watermark;
    await new Promise((r) => setTimeout(r, 2100));
    const g = await bench.grant();
    const scoped = await bench.projector({ owner: 'run-2-1' }).sync({ workIds: [g.workId] });
    expect(scoped.targets).toHaveLength(1);
    const after = readJournal((await bench.projector().journal.load()).bytes);
    expect(after.watermarks.get('owner/repo')! > watermark).toBe(true);
    const other = works.find((w) => w.workId !== g.workId)!;
    expect(after.entries.get(`issue:${other.workId}`)!.seen!.labels).toEqual(['work']);
    const later = await bench.projector({ owner: 'run-3-1' }).sync();
    expect(later.targets).toHaveLength(2);
    expect([...ib!.labels].sort()).toEqual(['work', 'work:queued']);
    expect([...ia!.labels].sort()).toEqual(['work', 'work:running']);
    expect(works).toHaveLength(2);
  });
});

describe('backing Issues: more Work than one batch', () => {
  it('beyond 25 Work every Work is projected over successive runs (Work needing it first), the watermark moves, and no Issue is read one by one', async () => {
    bench = await issueBench(Array.from({ length: 27 }, (_, i) => ({ node_key: `n${i + 1}`, payload: {} })));
    const first = await bench.projector().sync();
    expect(first.targets).toHaveLength(25);
    expect(first.deferred).toHaveLength(2);
    const before = bench.fake.requests.length;
    const second = await bench.projector({ owner: 'run-2-1' }).sync();
    expect(issuesOf(bench)).toHaveLength(27); // the two deferred Work went first
    expect(second.targets.filter((t) => t.issue.outcome === 'created')).toHaveLength(2);
    const third = await bench.projector({ owner: 'run-3-1' }).sync();
    expect(third.requests).toEqual({ github_reads: 2, github_writes: 0, journal_writes: 0, ledger_publications: 0 });

    // A human disturbs the labels of the 27th Issue, which a full run's first 25 (FIFO, all in sync) do not include.
    const last = issuesOf(bench).at(-1)!;
    last.labels = last.labels.filter((l) => l !== 'work:queued');
    last.updatedAt = new Date(Date.now() + 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const noticing = await bench.projector({ owner: 'run-4-1' }).sync();
    expect(noticing.targets.some((t) => t.issue.number === String(last.number))).toBe(false);
    expect(noticing.requests.journal_writes).toBe(1); // the seen snapshot (and the watermark)
    const repairing = await bench.projector({ owner: 'run-5-1' }).sync();
    expect(repairing.targets.some((t) => t.issue.number === String(last.number))).toBe(true);
    expect([...last.labels].sort()).toEqual(['work', 'work:queued']);
    const direct = bench.fake.requests.slice(before).filter((r) => r.method === 'GET' && r.template === '/repos/{owner}/{repo}/issues/{issue_number}');
    expect(direct).toEqual([]);
  });

  it('a repository busier than the three-page feed between two runs: the watermark still moves, a human edit outside the batch is repaired, and reads return to two', async () => {
    bench = await issueBench(Array.from({ length: 27 }, (_, i) => ({ node_key: `n${i + 1}`, payload: {} })));
    await bench.projector().sync();
    await bench.projector({ owner: 'run-2-1' }).sync();
    expect(issuesOf(bench)).toHaveLength(27);
    const watermark = readJournal((await bench.projector().journal.load()).bytes).watermarks.get('owner/repo')!;
    const at = (s: number) => new Date(Date.parse(watermark) + s * 1000).toISOString().replace('.000Z', 'Z');
    // 310 unrelated Issues change after the watermark (more than the feed's three pages of 100) ...
    for (let k = 0; k < 310; k++) seedIssue(bench.fake.state, bench.repo, { number: 1000 + k, id: String(900000 + k), updatedAt: at(1 + Math.min(2, Math.floor(k / 100))) });
    // ... and, after them, a human removes the status label of the 27th Work's Issue (outside a full run's first 25).
    const last = issuesOf(bench).find((i) => i.number === 27)!;
    last.labels = last.labels.filter((l) => l !== 'work:queued');
    last.updatedAt = at(4);
    // Those changes are older than GitHub's clock less the watermark's margin.
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(at(6)) + 60_000 - Date.now())));
    const marks: string[] = [];
    for (let run = 3; run <= 6 && [...last.labels].sort().join() !== 'work,work:queued'; run++) {
      await bench.projector({ owner: `run-${run}-1` }).sync();
      marks.push(readJournal((await bench.projector().journal.load()).bytes).watermarks.get('owner/repo')!);
    }
    expect([...last.labels].sort()).toEqual(['work', 'work:queued']);
    expect(marks[0]! > watermark).toBe(true);
    const settled = await bench.projector({ owner: 'run-9-1' }).sync();
    expect(settled.requests).toEqual({ github_reads: 2, github_writes: 0, journal_writes: 0, ledger_publications: 0 });
  }, 30_000);
});
