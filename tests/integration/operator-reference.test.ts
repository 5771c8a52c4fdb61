/**
 * Every read-side command example of the operator reference
 * (../shared/spec/work-queues-operator-reference.md, "Operator commands": `gh aw work-queue ...`)
 * run as Fairway's equivalent through the real entry point on a real local Git repository queue
 * (tests/support/operator-queue.ts), with its flags, `--json` and its documented errors. One test
 * per example, named after it. The write-side examples are in operator-reference-writes.test.ts,
 * the `--repo owner/repo` code block in operator-reference-github.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dirCli, fixtureRepo, inputFiles, queueTip } from '../support/fixture-repo.ts';
import { operatorQueue, type OperatorQueue } from '../support/operator-queue.ts';

let q: OperatorQueue;
beforeAll(async () => {
  q = await operatorQueue('fairway-opref-');
});

const works = (rows: { kind: string }[]) => rows.filter((r) => r.kind === 'work') as { kind: string; node_key: string; work_id: string; state: string; graph_id: string }[];

describe('operator reference: read commands', () => {
  it('replay, stats: the state reconstructed from the log (typed dependency nodes, Claims, native reservations)', async () => {
    const replay = await q.run('replay', '--json');
    expect(replay.code).toBe(0);
    expect(replay.json.summary.works.total).toBe(5);
    expect(replay.json.claims.map((c: { claim_id: string }) => c.claim_id).sort()).toEqual([...q.claims].sort());
    expect(replay.json.reservations).toBeDefined();
    const docs = replay.json.works.find((w: { work_id: string }) => w.work_id === q.work.docs);
    expect(JSON.stringify(docs)).toContain(q.work.code); // the typed work dependency
    const stats = await q.run('stats', '--json');
    expect(stats.code).toBe(0);
    expect(stats.json.pools[0]).toMatchObject({ pool: 'default', claimed: 2, logical_outstanding: 2, native_outstanding: 2 });
    const human = await q.run('stats');
    expect(human.out).toMatch(/pool default: available 3 \(eligible 2\), claimed 2, logical 2\/16, native 2\/16/);
  });

  it('state [--graph GRAPH] [--pool POOL] [--state STATE] [--search TEXT]: an ASCII tree of graphs, Work and Claims, metadata only', async () => {
    const tree = await q.run('state', '--graph', 'sdk', '--pool', 'default', '--state', 'available', '--search', 'docs');
    expect(tree.code).toBe(0);
    expect(tree.out).toBe(`graph "sdk" (1 Work)\n  available P3 "docs" key="" waiting(dependency_wait) ${q.work.docs}\nrows 1-2 of 2\n`);
    const page = await q.run('state', '--graph', 'sdk', '--pool', 'default', '--state', 'available', '--search', 'docs', '--json');
    expect(works(page.json.rows).map((w) => w.node_key)).toEqual(['docs']);
    const all = await q.run('state', '--json');
    expect(all.out).not.toContain('upgrade the SDK'); // payloads are never shown
    expect(works(all.json.rows)).toHaveLength(5);
    expect(all.json.rows.filter((r: { kind: string }) => r.kind === 'claim')).toHaveLength(2);
    const bad = await q.run('state', '--state', 'bogus', '--json');
    expect([bad.code, bad.json.error.code]).toEqual([2, 'option_invalid']);
  });

  it('state --offset and --limit paginate at most 256 rows', async () => {
    const page = await q.run('state', '--offset', '1', '--limit', '2', '--json');
    expect(page.json).toMatchObject({ total: 9, offset: 1, limit: 2, next_offset: 3 });
    expect(page.json.rows).toHaveLength(2);
    const human = await q.run('state', '--offset', '1', '--limit', '2');
    expect(human.out).toMatch(/rows 2-3 of 9 \(next: --offset 3\)\n$/);
    for (const limit of ['0', '257']) {
      const r = await q.run('state', '--limit', limit, '--json');
      expect([r.code, r.json.error.code], limit).toEqual([2, 'option_invalid']);
    }
  });

  it('state --offset and --limit: a page is at most 64 KiB too (--format jsonl bytes), and the pages cover every row once', async () => {
    const repo = fixtureRepo('fairway-opref-64k-');
    const nodes = Array.from({ length: 250 }, (_, i) => ({ node_key: `node-${String(i).padStart(3, '0')}-${'k'.repeat(200)}`, payload: { i } }));
    const sub = await dirCli(repo, '--json', 'submit-graph', '--file', inputFiles('fairway-opref-64k-in-')('graph.json', nodes), '--graph-id', 'big');
    expect(sub.code, sub.out).toBe(0);
    const seen: string[] = [];
    for (let offset: number | null = 0, pages = 0; offset !== null; pages++) {
      expect(pages).toBeLessThan(20);
      const lines = await dirCli(repo, 'state', '--offset', String(offset), '--limit', '256', '--format', 'jsonl');
      expect(lines.code).toBe(0);
      expect(Buffer.byteLength(lines.out)).toBeLessThanOrEqual(64 * 1024);
      const page = await dirCli(repo, 'state', '--offset', String(offset), '--limit', '256', '--json');
      expect(page.json.rows).toEqual(lines.out.trim().split('\n').map((l) => JSON.parse(l)));
      seen.push(...page.json.rows.map((r: { id: string }) => r.id));
      expect(page.json.next_offset === null ? seen.length : page.json.next_offset).toBe(seen.length);
      offset = page.json.next_offset;
    }
    expect(seen).toHaveLength(251); // the graph row and its 250 Work
    expect(new Set(seen).size).toBe(251);
    const human = await dirCli(repo, 'state', '--limit', '256');
    expect(human.out).toMatch(/\(next: --offset \d+\)\n$/);
  });

  it('inspect --work-id ID: full copyable ids, dependency cross-references, ownership and separate delivery and native-run barriers', async () => {
    const code = await q.run('inspect', '--work-id', q.work.code.slice(0, 12), '--json');
    expect(code.code).toBe(0);
    expect(code.json).toMatchObject({ work_id: q.work.code, state: 'claimed', barrier: 'none', successors: [q.work.docs] });
    expect(code.json.current_claim).toBe(q.claims[1]);
    expect(code.json.claims).toEqual([{ claim_id: q.claims[1], state: 'open', cancel_reason: null, dispatch_id: q.dispatches[1], current: true, native_run: { dispatch_state: 'reserved', run: null, released: false } }]);
    const docs = await q.run('inspect', '--work-id', q.work.docs, '--json');
    expect(JSON.stringify(docs.json.depends_on)).toContain(q.work.code);
    const unknown = await q.run('inspect', '--work-id', 'f'.repeat(64), '--json');
    expect([unknown.code, unknown.json.error.code]).toEqual([3, 'unknown_work']);
    const neither = await q.run('inspect', '--json');
    expect([neither.code, neither.json.error.code]).toEqual([2, 'option_invalid']);
  });

  it('inspect --claim-id ID: the Claim, its original assignment membership and native run', async () => {
    const claim = await q.run('inspect', '--claim-id', q.claims[0]!, '--json');
    expect(claim.code).toBe(0);
    expect(claim.json).toMatchObject({ claim_id: q.claims[0], work_id: q.work.first, state: 'open', request_id: q.dispatchRequest });
    expect(claim.json.dispatch).toMatchObject({ dispatch_id: q.dispatches[0], members: [q.claims[0]], state: 'reserved', run: null, released: false });
    const unknown = await q.run('inspect', '--claim-id', `c_${'0'.repeat(64)}_1`, '--json');
    expect([unknown.code, unknown.json.error.code]).toEqual([3, 'unknown_claim']);
  });

  it('explain --pool POOL [--work-id ID]: the next selection, or why a Work is not next, without changing counters', async () => {
    const before = await q.run('verify', '--json');
    const next = await q.run('explain', '--pool', 'default', '--json');
    expect(next.code).toBe(0);
    expect(JSON.stringify(next.json)).toContain(q.work.x); // x: the oldest eligible Work
    const docs = await q.run('explain', '--pool', 'default', '--work-id', q.work.docs, '--json');
    expect(docs.json).toMatchObject({ reason: 'dependency_wait', is_next: false, eligible: false });
    expect(docs.json.blocking_path.map((s: { work_id: string }) => s.work_id)).toContain(q.work.code);
    expect((await q.run('verify', '--json')).json.tip).toBe(before.json.tip); // nothing written
    const unknown = await q.run('explain', '--pool', 'nope', '--json');
    expect([unknown.code, unknown.json.error.code]).toEqual([3, 'pool_invalid']);
  });

  it('explain --request-id ID or explain --claim-id ID: reconstructs an exact historical grant from the log', async () => {
    const request = await q.run('explain', '--request-id', q.dispatchRequest, '--json');
    expect(request.code).toBe(0);
    expect(request.json.claims.map((c: { claim_id: string }) => c.claim_id)).toEqual(q.claims);
    const claim = await q.run('explain', '--claim-id', q.claims[1]!, '--json');
    expect(claim.json).toMatchObject({ request_id: q.dispatchRequest, focus_claim: q.claims[1] });
    const both = await q.run('explain', '--pool', 'default', '--claim-id', q.claims[1]!, '--json');
    expect([both.code, both.json.error.code]).toEqual([2, 'option_invalid']);
    const unknown = await q.run('explain', '--request-id', 'never-committed', '--json');
    expect([unknown.code, unknown.json.error.code]).toEqual([3, 'unknown_request']);
  });

  it('trace --request-id ID or trace --claim-id ID, with --offset and --limit: causal events, no payloads', async () => {
    const request = await q.run('trace', '--request-id', q.submitRequest, '--json');
    expect(request.code).toBe(0);
    expect(request.json).toMatchObject({ total: 1, offset: 0, events: [expect.objectContaining({ kind: 'submit' })] });
    expect(request.out).not.toContain('upgrade the SDK');
    const claim = await q.run('trace', '--claim-id', q.claims[0]!, '--offset', '0', '--limit', '1', '--json');
    expect(claim.json).toMatchObject({ total: 1, limit: 1, events: [expect.objectContaining({ kind: 'dispatch_next' })] });
    const past = await q.run('trace', '--claim-id', q.claims[0]!, '--offset', '1');
    expect(past.out).toBe('no events at offset 1 of 1\n');
    const neither = await q.run('trace', '--json');
    expect([neither.code, neither.json.error.code]).toEqual([2, 'option_invalid']);
    const unknown = await q.run('trace', '--request-id', 'never-committed', '--json');
    expect([unknown.code, unknown.json.error.code]).toEqual([3, 'unknown_request']);
  });

  it('evidence, reconcile --dispatch-id ID: the recorded run evidence; uncertainty retains reserved capacity', async () => {
    const evidence = await q.run('evidence', '--dispatch-id', q.dispatches[0]!, '--json');
    expect(evidence.code).toBe(0);
    expect(evidence.json.groups).toEqual([expect.objectContaining({ dispatch_id: q.dispatches[0], state: 'reserved' })]);
    const before = (await q.run('verify', '--json')).json.tip;
    const reconcile = await q.run('reconcile', '--dispatch-id', q.dispatches[0]!, '--json');
    expect(reconcile.code).toBe(0);
    expect(reconcile.json.reconciled).toEqual([expect.objectContaining({ dispatch_id: q.dispatches[0], outcome: 'reserved', commits: [] })]);
    expect((await q.run('verify', '--json')).json.tip).toBe(before); // no evidence: nothing released
    expect((await q.run('stats', '--json')).json.pools[0].native_outstanding).toBe(2);
    const ambiguous = await q.run('reconcile', '--dispatch-id', q.dispatches[0]!.slice(0, 9), '--json');
    expect([ambiguous.code, ambiguous.json.error.code]).toEqual([2, 'id_ambiguous']);
  });

  // A terminal that is not interactive or smaller than 45x16: tests/tui/integration.test.ts ("fairway tui refusals").
  it('tui (alias interactive): rejects --json and --request-id', async () => {
    for (const name of ['tui', 'interactive']) {
      const json = await q.run('--json', name);
      expect([json.code, json.json.error.code], name).toEqual([2, 'option_invalid']);
      const rid = await q.run(name, '--request-id', 'x');
      expect([rid.code, rid.err], name).toEqual([2, expect.stringMatching(/^fairway: option_invalid: .*--request-id is not accepted/)]);
    }
  });

  it('read commands on an absent queue report it uninitialized (the reference\'s queue_missing) and create nothing', async () => {
    const repo = fixtureRepo('fairway-opref-absent-');
    for (const args of [['replay'], ['stats'], ['state'], ['explain', '--pool', 'default'], ['trace', '--request-id', 'abcdefgh']]) {
      const r = await dirCli(repo, '--json', ...args);
      expect([r.code, r.json.error.code], args.join(' ')).toEqual([3, 'queue_uninitialized']);
    }
    expect(queueTip(repo)).toBeNull();
    // The code differs from the reference's name on purpose; README says so.
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    expect(readme).toMatch(/`queue_uninitialized` \(exit 3\), the reference's `queue_missing`/);
  });
});
