/**
 * `fairway simulate` and `fairway explain` through the real CLI entry point
 * (`main([...])` in-process, captured io): the INTERFACES contracts, exit
 * codes (0 / 2 usage / 3 protocol) and error codes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFairway } from '../support/cli.ts';
import { planNext } from '../../engine/scheduler/plan.ts';
import { issue, nodes, policyOf, TestQueue } from './queue.ts';

function capture() {
  let out = '';
  let err = '';
  return { io: { out: (s: string) => (out += s.endsWith('\n') ? s : `${s}\n`), err: (s: string) => (err += s) }, out: () => out, err: () => err };
}

async function run(args: string[]): Promise<{ code: number; out: string; err: string; json: () => Record<string, unknown> }> {
  const c = capture();
  const code = await runFairway(args, c.io);
  return { code, out: c.out(), err: c.err(), json: () => JSON.parse(c.out()) as Record<string, unknown> };
}

const dir = mkdtempSync(join(tmpdir(), 'fairway-acceptance-'));
function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const settings = file('settings.json', { mode: 'weighted-priority', class_weights: [8, 4, 2, 1, 1], accounting_weights: { a: 2, b: 1 } });
const workload = file('workload.json', {
  nodes: [{ key: 'a', priority: 3, count: 100 }, { key: 'b', priority: 3, count: 100 }, { key: '', priority: 1, count: 100 }],
  events: [{ after_grants: 10, pause_key: 'b' }, { after_grants: 20, resume_key: 'b' }],
});

describe('fairway simulate', () => {
  it('--json prints one object: ok, the full grant sequence and the share table', async () => {
    const r = await run(['simulate', '--settings', settings, '--workload', workload, '--grants', '30', '--json']);
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out).toMatchObject({ ok: true, mode: 'weighted-priority', requested: 30, granted: 30, stopped: null });
    expect(out.grants).toHaveLength(30);
    expect((out.grants as unknown[])[0]).toEqual({ priority: 1, key: '' });
    const shares = out.shares as Array<Record<string, unknown>>;
    expect(shares.map((s) => [s.level, s.priority, s.key])).toEqual([['class', 1, null], ['key', 1, ''], ['class', 3, null], ['key', 3, 'a'], ['key', 3, 'b']]);
    expect(Object.keys(shares[0]!)).toEqual(['level', 'priority', 'key', 'weight', 'grants', 'target_share', 'actual_share', 'max_prefix_deviation', 'longest_zero_service']);
    expect(shares.reduce((n, s) => n + (s.level === 'class' ? (s.grants as number) : 0), 0)).toBe(30);
  });

  it('human output is a compact share table', async () => {
    const r = await run(['simulate', '--settings', settings, '--workload', workload, '--grants', '30']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^simulated 30 of 30 grants \(weighted-priority\)/);
    expect(r.out).toMatch(/class\s+key\s+weight\s+grants\s+target%\s+actual%\s+max dev\s+longest wait/);
    expect(r.out).toMatch(/\n\s+a\s+2\s+\d+/);
  });

  it('16,000 grants take < 5 s end to end', async () => {
    const big = file('big.json', { nodes: [1, 2, 3, 4, 5].map((priority) => ({ key: '', priority, count: 16_000 })) });
    const t0 = performance.now();
    const r = await run(['simulate', '--settings', file('empty.json', {}), '--workload', big, '--grants', '16000', '--json']);
    const ms = performance.now() - t0;
    expect(r.code).toBe(0);
    expect((r.json().shares as Array<{ level: string; grants: number }>).filter((s) => s.level === 'class').map((s) => s.grants)).toEqual([8000, 4000, 2000, 1000, 1000]);
    expect(ms).toBeLessThan(5000);
  });

  it('usage errors exit 2: missing option, bad --grants', async () => {
    const missing = await run(['simulate', '--settings', settings, '--grants', '3', '--json']);
    expect(missing.code).toBe(2);
    expect((missing.json().error as { code: string }).code).toBe('option_missing');
    for (const grants of ['x', '-1', '1.5', '1000001']) {
      const bad = await run(['simulate', '--settings', settings, '--workload', workload, '--grants', grants, '--json']);
      expect(bad.code).toBe(2);
      expect((bad.json().error as { code: string }).code).toBe('invalid_grants');
    }
  });

  it('invalid settings and workloads exit 3 with a stable code and the property path', async () => {
    const cases: Array<[string, string, string, string]> = [
      [file('s1.json', { class_weights: [8, 4, 2, 1] }), workload, 'settings_invalid', 'work_queue.class_weights'],
      [file('s2.json', { accounting_weights: { a: 0 } }), workload, 'settings_invalid', 'work_queue.accounting_weights.a'],
      [file('s3.json', { work_queue: {} }), workload, 'settings_invalid', 'work_queue.work_queue'],
      [file('s4.json', '{"mode": '), workload, 'settings_invalid', 'work_queue'],
      [settings, file('w1.json', { nodes: [{ key: 'a', priority: 0, count: 1 }] }), 'workload_invalid', 'workload.nodes[0].priority'],
      [settings, file('w2.json', { nodes: [], events: [{ after_grants: 1, pause_key: 'a', extra: 1 }] }), 'workload_invalid', 'workload.events[0].extra'],
      [settings, file('w3.json', 'not json'), 'workload_invalid', 'workload'],
    ];
    for (const [s, w, code, path] of cases) {
      const r = await run(['simulate', '--settings', s, '--workload', w, '--grants', '3', '--json']);
      expect(r.code).toBe(3);
      expect(r.json().error).toMatchObject({ code, path });
    }
    const gone = await run(['simulate', '--settings', join(dir, 'nope.json'), '--workload', workload, '--grants', '3', '--json']);
    expect(gone.code).toBe(3);
    expect((gone.json().error as { code: string }).code).toBe('settings_not_found');
  });

  it('--help documents the workload format and the output', async () => {
    const r = await run(['simulate', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('--settings <file>');
    expect(r.out).toContain('"pause_key"');
    expect(r.out).toContain('max_prefix_deviation');
  });
});

describe('fairway explain', () => {
  // A: Issue-gated (never observed). B depends on A, C on B. a-1..a-3 and b-1..b-2 are ready.
  const q = new TestQueue(policyOf({ accounting_weights: { a: 2, b: 1 } }), [
    { node_key: 'A', payload: {}, fairness_key: 'a', depends_on: [{ kind: 'issue', condition: 'completed', resource: issue(9) }] },
    { node_key: 'B', payload: {}, fairness_key: 'a', depends_on: [{ kind: 'work', node_key: 'A' }] },
    { node_key: 'C', payload: {}, fairness_key: 'a', depends_on: [{ kind: 'work', node_key: 'B' }] },
    ...nodes('a', 3, 'a'),
    ...nodes('b', 2, 'b'),
  ]);
  q.grants(2);
  const ledger = file('explain.jsonl', q.text());
  const at = String(q.t + 1000);
  const explain = (...extra: string[]) => run(['explain', '--ledger', ledger, '--pool', 'default', '--as-of', at, ...extra]);

  it('--json: the next selection is planNext\'s own explanation', async () => {
    const r = await explain('--json');
    expect(r.code).toBe(0);
    const out = r.json();
    const plan = planNext(q.state, 'default', Number(at));
    expect(out).toEqual({ ok: true, ...JSON.parse(JSON.stringify(plan.explanation)) });
    expect(out).toMatchObject({ reason: 'weighted_key', outcome: 'selected', source_tip: q.state.tip, as_of: Number(at) });
    expect((out.eligibility as { skipped: Record<string, number> }).skipped).toEqual({ external_unavailable: 1, dependency_wait: 2 });
  });

  it('--work-id of a blocked Work: its eligibility reason and the blocking path to the first unsatisfied gate', async () => {
    const r = await explain('--work-id', q.workId('C'), '--json');
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out).toMatchObject({ ok: true, reason: 'dependency_wait', is_next: false, eligible: false, work: { node_key: 'C', state: 'available' } });
    const path = out.blocking_path as Array<Record<string, unknown>>;
    expect(path.map((s) => [s.kind, s.reason, s.work_id ?? s.condition])).toEqual([
      ['work', 'dependency_wait', q.workId('C')],
      ['work', 'dependency_wait', q.workId('B')],
      ['work', 'dependency_wait', q.workId('A')], // A is available but waits on its own gate
      ['issue', 'external_unavailable', 'completed'],
    ]);
    expect((out.next as { work: { node_key: string } }).work.node_key).toBe('b-1');
  });

  it('--work-id of eligible Work that is not next: the lost key comparison or fifo_order; the winner is next', async () => {
    // a (weight 2) took the first two grants; b (weight 1) now has the smaller pass.
    const lost = (await explain('--work-id', q.workId('a-3'), '--json')).json();
    expect(lost).toMatchObject({ reason: 'weighted_key', is_next: false, eligible: true, comparison: { level: 'key', work: { member: 'a', pass: '3' }, winner: { member: 'b', pass: '2' } } });
    const winner = (await explain('--work-id', q.workId('b-1'), '--json')).json();
    expect(winner).toMatchObject({ reason: 'weighted_key', is_next: true, eligible: true, comparison: null });
    const behind = (await explain('--work-id', q.workId('b-2'), '--json')).json();
    expect(behind).toMatchObject({ reason: 'fifo_order', is_next: false, eligible: true, next: { work: { node_key: 'b-1' } } });
    const q2 = new TestQueue(policyOf(), nodes('x', 3, ''));
    const l2 = file('fifo.jsonl', q2.text());
    const r = (await run(['explain', '--ledger', l2, '--pool', 'default', '--work-id', q2.workId('x-3'), '--as-of', String(q2.t), '--json'])).json();
    expect(r).toMatchObject({ reason: 'fifo_order', is_next: false, eligible: true, next: { reason: 'fifo_default', work: { node_key: 'x-1' } } });
  });

  it('human output: a few lines with the winner, reason and blocking path', async () => {
    const next = await explain();
    expect(next.out).toMatch(/next: Work [0-9a-f]{64} \(node "b-1"/);
    expect(next.out).toMatch(/reason: weighted_key/);
    const blocked = await explain('--work-id', q.workId('C'));
    expect(blocked.out).toMatch(/is not next: dependency_wait/);
    expect(blocked.out).toMatch(/Issue gate completed .*: external_unavailable/);
  });

  it('decision time defaults to now', async () => {
    const before = Date.now();
    const out = (await run(['explain', '--ledger', ledger, '--pool', 'default', '--json'])).json();
    expect(out.as_of as number).toBeGreaterThanOrEqual(before);
  });

  it('errors: unknown Work or pool exit 3; missing --pool / --ledger and a bad --as-of exit 2', async () => {
    const unknown = await explain('--work-id', 'f'.repeat(64), '--json');
    expect(unknown.code).toBe(3);
    expect((unknown.json().error as { code: string }).code).toBe('unknown_work');
    const pool = await run(['explain', '--ledger', ledger, '--pool', 'gpu', '--json']);
    expect(pool.code).toBe(3);
    expect((pool.json().error as { code: string }).code).toBe('pool_invalid');
    expect((await run(['explain', '--ledger', ledger, '--json'])).code).toBe(2);
    // Without --ledger, explain reads the queue branch of a repository: an empty one has no queue yet.
    const emptyRepo = mkdtempSync(join(tmpdir(), 'fairway-empty-'));
    execFileSync('git', ['init', '-q', emptyRepo]);
    const noQueue = await run(['explain', '--repo', emptyRepo, '--pool', 'default', '--json']);
    expect(noQueue.code).toBe(3);
    expect((noQueue.json().error as { code: string }).code).toBe('queue_uninitialized');
    const asOf = await run(['explain', '--ledger', ledger, '--pool', 'default', '--as-of', 'yesterday', '--json']);
    expect(asOf.code).toBe(2);
    expect((asOf.json().error as { code: string }).code).toBe('invalid_as_of');
  });
});
