/**
 * Issue 15 §2: machine-readable output. `replay --json` is the full authoritative projection
 * (fairway.projection/1, docs/projection-json.md) with `--output FILE`; `state --json` rows
 * carry full ids and metadata; `--state`/`--limit` are validated; `--format table|json|jsonl`
 * on the read commands. The demo ledger is read through the real entry point.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSmallQueue } from '../support/small-queue.ts';
import { runFairway } from '../support/cli.ts';
import { fixtureRepo } from '../support/fixture-repo.ts';

const dir = mkdtempSync(join(tmpdir(), 'fairway-output-'));
const demo = buildSmallQueue();
const ledger = join(dir, 'demo.jsonl');
writeFileSync(ledger, demo.ledger);
const DOC = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'projection-json.md'), 'utf8');

async function fairway(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runFairway(args, { out: (s) => void (out += s.endsWith('\n') ? s : `${s}\n`), err: (s) => void (err += s) });
  return { code, out, err };
}

const lines = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);

describe('replay --json: the full authoritative projection', () => {
  it('holds every Work (state, readiness, reason), Claim, group, reservation, barrier, control, Policy and request', async () => {
    const r = await fairway('--ledger', ledger, 'replay', '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    const s = demo.writer.state;
    expect(doc).toMatchObject({ ok: true, schema: 'fairway.projection/1', tip: s.tip, commits: s.commits.length, repository: s.repository });
    expect(doc.as_of).toBe(s.commits.at(-1)!.at);
    expect(doc.works).toHaveLength(s.works.size);
    for (const w of doc.works) {
      const record = s.works.get(w.work_id)!;
      expect(w.state).toBe(record.state);
      expect(['ready', 'waiting', 'running', 'terminal']).toContain(w.readiness);
      if (w.readiness === 'waiting') expect(typeof w.reason).toBe('string');
      if (w.readiness === 'ready') expect(w.reason).toBeNull();
      expect(w).not.toHaveProperty('definition');
    }
    const readiness = new Set(doc.works.map((w: { readiness: string }) => w.readiness));
    expect(readiness).toEqual(new Set(['ready', 'terminal']));
    expect(doc.claims.map((c: { claim_id: string }) => c.claim_id).sort()).toEqual([...s.claims.keys()].sort());
    expect(doc.dispatch_groups.map((d: { dispatch_id: string; released: boolean }) => [d.dispatch_id, d.released])).toEqual([...s.dispatches.values()].map((d) => [d.dispatchId, d.released]));
    expect(doc.requests.map((q: { request_id: string }) => q.request_id)).toEqual([...s.requests.keys()]);
    expect(doc.barriers.map((b: { work_id: string }) => b.work_id).sort()).toEqual([...s.works.values()].filter((w) => w.barrier !== 'none').map((w) => w.workId).sort());
    expect(doc.controls).toEqual(s.controls);
    expect(doc.policy.epoch).toBe('demo-epoch-1');
    expect(doc.policy.policy.pools.default).toBeDefined();
    expect(doc.reservations.pending_by_pool.default).toBe(doc.works.filter((w: { state: string }) => w.state === 'available').length);
    expect(doc.summary.works.total).toBe(s.works.size);
  });

  it('is a function of the ledger (same bytes twice) and --as-of moves only the evaluation time', async () => {
    const a = await fairway('--ledger', ledger, 'replay', '--json');
    const b = await fairway('--ledger', ledger, 'replay', '--format', 'json');
    expect(b.out).toBe(a.out);
    const later = JSON.parse((await fairway('--ledger', ledger, 'replay', '--json', '--as-of', '1')).out);
    expect(later.as_of).toBe(1);
    expect((await fairway('--ledger', ledger, 'replay', '--json', '--as-of', 'soon')).code).toBe(2);
  });

  it('--with-payloads adds each admitted definition; --output FILE writes the document and prints a confirmation', async () => {
    const withPayloads = JSON.parse((await fairway('--ledger', ledger, 'replay', '--json', '--with-payloads')).out);
    const first = withPayloads.works[0];
    expect(first.definition).toEqual(JSON.parse(JSON.stringify(demo.writer.state.works.get(first.work_id)!.definition)));
    const file = join(dir, 'projection.json');
    const r = await fairway('--ledger', ledger, 'replay', '--json', '--output', file);
    expect(r.code).toBe(0);
    const confirmation = JSON.parse(r.out);
    expect(confirmation).toMatchObject({ ok: true, output: file, format: 'json', tip: demo.writer.state.tip });
    const written = readFileSync(file, 'utf8');
    expect(confirmation.bytes).toBe(Buffer.byteLength(written));
    expect(written).toBe((await fairway('--ledger', ledger, 'replay', '--json')).out);
    const bad = await fairway('--ledger', ledger, 'replay', '--json', '--output', join(dir, 'no', 'such', 'dir.json'));
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.out).error.code).toBe('output_unwritable');
  });

  it('--format jsonl is the same content, one typed record per line', async () => {
    const doc = JSON.parse((await fairway('--ledger', ledger, 'replay', '--json')).out);
    const records = lines((await fairway('--ledger', ledger, 'replay', '--format', 'jsonl')).out);
    expect(records[0]!.type).toBe('queue');
    expect(records[0]!.tip).toBe(doc.tip);
    const of = (type: string) => records.filter((r) => r.type === type).map(({ type: _t, ...rest }) => rest);
    expect(of('work')).toEqual(doc.works);
    expect(of('claim')).toEqual(doc.claims);
    expect(of('dispatch_group')).toEqual(doc.dispatch_groups);
    expect(of('request')).toEqual(doc.requests);
  });

  it('docs/projection-json.md documents every top-level member and every Work, Claim and group field', async () => {
    const doc = JSON.parse((await fairway('--ledger', ledger, 'replay', '--json', '--with-payloads')).out);
    for (const key of Object.keys(doc)) expect(DOC, key).toContain(`\`${key}\``);
    for (const list of ['works', 'claims', 'dispatch_groups', 'requests', 'barriers'] as const) {
      for (const key of Object.keys(doc[list][0])) expect(DOC, `${list}.${key}`).toContain(`\`${key}\``);
    }
  });
});

describe('state, stats, inspect and trace', () => {
  it('state --json rows carry full ids, state, readiness, reason, pool, priority, fairness key, owner and timestamps', async () => {
    const r = await fairway('--ledger', ledger, 'state', '--json', '--limit', '256');
    expect(r.code).toBe(0);
    const page = JSON.parse(r.out);
    const works = page.rows.filter((row: { kind: string }) => row.kind === 'work');
    const claimed = works.find((w: { owner: unknown }) => w.owner !== null);
    const record = demo.writer.state.works.get(claimed.work_id)!;
    expect(claimed).toMatchObject({
      id: record.workId, work_id: record.workId, graph_id: record.graphId, node_key: record.nodeKey, state: record.state,
      pool: record.pool, priority: record.priority, effective_priority: record.effectivePriority, fairness_key: record.fairnessKey,
      owner: { claim_id: record.currentClaim },
    });
    expect(claimed.work_id).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof claimed.admitted_at).toBe('number');
    expect(typeof claimed.readiness).toBe('string');
    expect(claimed).toHaveProperty('reason');
    expect(claimed.label).toContain(record.workId); // text shows the full id too
    const claim = page.rows.find((row: { kind: string }) => row.kind === 'claim');
    expect(claim.claim_id).toBe(claim.id);
    expect(typeof claim.granted_at).toBe('number');
  });

  it('--state and --limit are validated (exit 2); --state filters', async () => {
    for (const args of [['--state', 'bogus'], ['--limit', '0'], ['--limit', '257'], ['--limit', 'ten'], ['--offset', '-1']]) {
      const r = await fairway('--ledger', ledger, '--json', 'state', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(JSON.parse(r.out).error.code, args.join(' ')).toBe('option_invalid');
    }
    const human = await fairway('--ledger', ledger, 'state', '--limit', '0');
    expect(human.code).toBe(2);
    expect(human.out).not.toContain('rows 1-0');
    const completed = JSON.parse((await fairway('--ledger', ledger, '--json', 'state', '--state', 'completed')).out);
    const states = new Set(completed.rows.filter((r: { kind: string }) => r.kind === 'work').map((r: { state: string }) => r.state));
    expect(states).toEqual(new Set(['completed']));
  });

  it('--format jsonl streams state rows, trace events and stats records; --format json equals --json', async () => {
    const page = JSON.parse((await fairway('--ledger', ledger, '--json', 'state', '--limit', '20')).out);
    expect(lines((await fairway('--ledger', ledger, 'state', '--limit', '20', '--format', 'jsonl')).out)).toEqual(page.rows);
    expect((await fairway('--ledger', ledger, 'state', '--limit', '20', '--format', 'json')).out).toBe((await fairway('--ledger', ledger, '--json', 'state', '--limit', '20')).out);
    const claim = page.rows.find((r: { kind: string }) => r.kind === 'claim').claim_id as string;
    const trace = JSON.parse((await fairway('--ledger', ledger, '--json', 'trace', '--claim-id', claim)).out);
    expect(lines((await fairway('--ledger', ledger, 'trace', '--claim-id', claim, '--format', 'jsonl')).out)).toEqual(trace.events);
    const stats = JSON.parse((await fairway('--ledger', ledger, '--json', 'stats')).out);
    const records = lines((await fairway('--ledger', ledger, 'stats', '--format', 'jsonl')).out);
    expect(records[0]).toMatchObject({ type: 'queue', tip: stats.tip, policy_epoch: stats.policy_epoch });
    expect(records.filter((r) => r.type === 'pool').map((r) => r.pool)).toEqual(stats.pools.map((p: { pool: string }) => p.pool));
    expect(records.filter((r) => r.type === 'backlog').length).toBe(stats.pools.reduce((n: number, p: { backlog: unknown[] }) => n + p.backlog.length, 0));
    const work = page.rows.find((r: { kind: string }) => r.kind === 'work').work_id as string;
    expect(lines((await fairway('--ledger', ledger, 'inspect', '--work-id', work, '--format', 'jsonl')).out)).toHaveLength(1);
    const evidence = JSON.parse((await fairway('--ledger', ledger, '--json', 'evidence', '--work-id', work)).out);
    expect(lines((await fairway('--ledger', ledger, 'evidence', '--work-id', work, '--format', 'jsonl')).out)).toEqual(evidence.groups);
    const explained = JSON.parse((await fairway('--ledger', ledger, '--json', 'explain', '--pool', 'default', '--as-of', '1796174304910')).out);
    const explainedLine = lines((await fairway('--ledger', ledger, 'explain', '--pool', 'default', '--as-of', '1796174304910', '--format', 'jsonl')).out);
    expect(explainedLine).toEqual([explained]);
  });

  it('a format error is a usage error, and errors under --format json|jsonl are JSON', async () => {
    const conflict = await fairway('--ledger', ledger, '--json', 'state', '--format', 'table');
    expect(conflict.code).toBe(2);
    expect(JSON.parse(conflict.out).error.code).toBe('format_conflict');
    const bogus = await fairway('--ledger', ledger, 'stats', '--format', 'xml');
    expect(bogus.code).toBe(2);
    expect(bogus.err).toMatch(/^fairway: option_invalid: .*Allowed choices are table, json, jsonl/);
    const unknown = await fairway('--ledger', ledger, 'inspect', '--work-id', 'f'.repeat(64), '--format', 'jsonl');
    expect(unknown.code).toBe(3);
    expect(JSON.parse(unknown.out).error.code).toBe('unknown_work');
  });

  it('table is the default and prints human lines', async () => {
    const r = await fairway('--ledger', ledger, 'state', '--limit', '5');
    expect(r.out).toMatch(/^graph "/);
    expect(r.out).toMatch(/rows 1-5 of \d+/);
  });

  it('works on a live local repository too', async () => {
    const repo = fixtureRepo('fairway-output-repo-');
    const graph = join(dir, 'graph.json');
    writeFileSync(graph, JSON.stringify([{ node_key: 'a', payload: {} }, { node_key: 'b', payload: {}, depends_on: [{ kind: 'work', node_key: 'a' }] }]));
    expect((await fairway('--dir', repo, '--json', 'submit-graph', '--file', graph, '--graph-id', 'g')).code).toBe(0);
    expect((await fairway('--dir', repo, '--json', 'dispatch-next')).code).toBe(0);
    const doc = JSON.parse((await fairway('--dir', repo, 'replay', '--json')).out);
    const byKey = Object.fromEntries(doc.works.map((w: { node_key: string }) => [w.node_key, w]));
    expect(byKey.a).toMatchObject({ state: 'claimed', readiness: 'running', reason: null, owner: { claim_id: doc.claims[0].claim_id, dispatch_id: doc.claims[0].dispatch_id, run_id: null } });
    expect(byKey.b).toMatchObject({ state: 'available', readiness: 'waiting', reason: 'dependency_wait', owner: null });
    expect(byKey.b.blocking_path.map((s: { work_id?: string }) => s.work_id)).toContain(byKey.a.work_id);
    expect(doc.reservations.held_by).toEqual([{ dispatch_id: doc.claims[0].dispatch_id, pool: 'default', state: 'reserved', claims: 1 }]);
    expect(doc.reservations.logical.default).toBe(1);
    const rows = JSON.parse((await fairway('--dir', repo, '--json', 'state')).out).rows;
    expect(rows.find((r: { node_key?: string }) => r.node_key === 'b')).toMatchObject({ readiness: 'waiting', reason: 'dependency_wait' });
  });
});
