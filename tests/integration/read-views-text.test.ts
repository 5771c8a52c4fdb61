/**
 * The human (table) output of the read commands `stats`, `state`, `inspect` and `trace` through the CLI
 * entry point: it must say what `--json` says, and never mislead about what the queue accepts;
 * and the bound of a `state` page.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFairway } from '../support/cli.ts';
import { fixtureRepo, git } from '../support/fixture-repo.ts';

async function fairway(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runFairway(args, { out: (s) => void (out += s.endsWith('\n') ? s : `${s}\n`), err: (s) => void (err += s) });
  return { code, out, err };
}

describe('stats text', () => {
  it('does not report 0 bytes left for new admission when the owed reserve exceeds the reserve (admission is still open)', async () => {
    // The demo queue owes more lifecycle bytes than its recovery reserve, which Fairway allows
    // (docs/operating-envelope.md "What is not enforced"): admission is bounded by watermark + reserve.
    const ledger = join(mkdtempSync(join(tmpdir(), 'fairway-stats-text-')), 'demo.jsonl');
    expect((await fairway('demo', '--out', ledger)).code).toBe(0);
    const e = JSON.parse((await fairway('--ledger', ledger, '--json', 'stats')).out).envelope;
    expect(e.reserve).toBeGreaterThan(e.recovery_bytes);
    expect(e.closure_remaining).toBeGreaterThan(0);
    const text = await fairway('--ledger', ledger, 'stats');
    expect(text.code).toBe(0);
    expect(text.out).not.toMatch(/0 left for new admission/);
    expect(text.out).toContain(`worst-case lifecycle bytes owed ${e.reserve}, ${e.closure_remaining} bytes left under the watermark + ${e.recovery_bytes}-byte reserve bound`);
  });
});

describe('stats counts', () => {
  it('gives Work counts by every state and the delivery barriers (as replay does), and says when grants or admission are paused', async () => {
    const ledger = join(mkdtempSync(join(tmpdir(), 'fairway-stats-counts-')), 'demo.jsonl');
    expect((await fairway('demo', '--out', ledger)).code).toBe(0);
    const summary = JSON.parse((await fairway('--ledger', ledger, '--json', 'replay')).out).summary;
    const stats = JSON.parse((await fairway('--ledger', ledger, '--json', 'stats')).out);
    expect(stats.works).toEqual(summary.works.by_state);
    expect(stats.barriers).toEqual(summary.barriers);
    const w = summary.works.by_state;
    const b = summary.barriers;
    const text = (await fairway('--ledger', ledger, 'stats')).out;
    expect(text).toContain(`Work: available ${w.available}, claimed ${w.claimed}, completed ${w.completed}, cancelled ${w.cancelled}; delivery barriers: pending ${b.pending}, verified ${b.verified}, failed ${b.failed}`);
    expect(text).not.toContain('PAUSED');

    const repo = fixtureRepo('fairway-stats-paused-');
    const work = join(mkdtempSync(join(tmpdir(), 'fairway-stats-paused-files-')), 'w.json');
    writeFileSync(work, '{}');
    expect((await fairway('--dir', repo, 'submit-work', '--file', work, '--node-key', 'a')).code).toBe(0);
    expect((await fairway('--dir', repo, 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident')).code).toBe(0);
    expect((await fairway('--dir', repo, 'stats')).out).toMatch(/^PAUSED: grants \(fairway control to resume\)$/m);
  });
});

describe('stats backlog', () => {
  it('says how many (class, key) buckets the text leaves out past the first 20', async () => {
    const repo = fixtureRepo('fairway-stats-backlog-');
    const keys = Array.from({ length: 23 }, (_, i) => `tenant-${String(i).padStart(2, '0')}`);
    writeFileSync(join(repo, '.github', 'workflows', 'aw.json'), JSON.stringify({ work_queue: { accounting_weights: Object.fromEntries(keys.map((k) => [k, 1])) } }));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'fairness keys');
    const graph = join(mkdtempSync(join(tmpdir(), 'fairway-stats-backlog-files-')), 'graph.json');
    writeFileSync(graph, JSON.stringify(Array.from({ length: 23 }, (_, i) => ({ node_key: `n${i}`, payload: {}, fairness_key: keys[i] }))));
    expect((await fairway('--dir', repo, 'submit-graph', '--file', graph, '--graph-id', 'g')).code).toBe(0);
    const pool = JSON.parse((await fairway('--dir', repo, '--json', 'stats')).out).pools[0];
    expect(pool.backlog).toHaveLength(23);
    const text = (await fairway('--dir', repo, 'stats')).out;
    expect(text.match(/^ {2}P3 "tenant-/gm)).toHaveLength(20);
    expect(text).toContain('  ... 3 more (class, key) buckets: stats --json lists them all');
  });
});

describe('state and inspect text escape submitted metadata', () => {
  it('prints C1 controls and bidirectional overrides in node keys as \\u escapes, quoting metadata; --json keeps the value', async () => {
    const repo = fixtureRepo('fairway-escape-');
    const graph = join(mkdtempSync(join(tmpdir(), 'fairway-escape-files-')), 'graph.json');
    // U+009B is CSI (a terminal may act on it); U+202E reverses the rest of the line on screen.
    writeFileSync(graph, JSON.stringify([{ node_key: 'csi-\u009b31m-red', payload: {} }, { node_key: 'rtl-\u202eevil', payload: {} }]));
    const submitted = await fairway('--dir', repo, '--json', 'submit-graph', '--file', graph, '--graph-id', 'g\u2066x');
    expect(submitted.code).toBe(0);
    const [csi, rtl] = JSON.parse(submitted.out).work_ids as string[];
    const raw = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/;
    const state = await fairway('--dir', repo, 'state');
    expect(state.out).not.toMatch(raw);
    expect(state.out).toContain('graph "g\\u2066x" (2 Work)');
    expect(state.out).toContain('"csi-\\u009b31m-red" key=""');
    expect(state.out).toContain('"rtl-\\u202eevil" key=""');
    for (const [id, key] of [[csi, 'csi-\\u009b31m-red'], [rtl, 'rtl-\\u202eevil']] as const) {
      const inspect = await fairway('--dir', repo, 'inspect', '--work-id', id!);
      expect(inspect.code).toBe(0);
      expect(inspect.out).not.toMatch(raw);
      expect(inspect.out).toMatch(new RegExp(`^node_key {11}"${key.replace(/\\/g, '\\\\')}"$`, 'm'));
      expect(inspect.out).toMatch(/^fairness_key {7}""$/m);
      expect(inspect.out).toMatch(new RegExp(`^work_id {12}${id}$`, 'm'));
    }
    const json = JSON.parse((await fairway('--dir', repo, '--json', 'inspect', '--work-id', rtl!)).out);
    expect(json.node_key).toBe('rtl-\u202eevil');
  });
});

describe('state pages', () => {
  it('hold at most 64 KiB of rows (operator reference: 256 rows/64 KiB), and next_offset walks every row once', async () => {
    const ledger = join(mkdtempSync(join(tmpdir(), 'fairway-state-page-')), 'demo.jsonl');
    expect((await fairway('demo', '--out', ledger)).code).toBe(0);
    const seen: string[] = [];
    let offset: number | null = 0;
    let total = 0;
    while (offset !== null) {
      const r = await fairway('--ledger', ledger, 'state', '--limit', '256', '--offset', String(offset), '--format', 'jsonl');
      expect(r.code).toBe(0);
      expect(Buffer.byteLength(r.out)).toBeLessThanOrEqual(64 * 1024);
      const page = JSON.parse((await fairway('--ledger', ledger, '--json', 'state', '--limit', '256', '--offset', String(offset))).out);
      expect(r.out.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(page.rows.map((row: { id: string }) => row.id));
      expect(page.rows.length).toBeGreaterThan(0);
      seen.push(...page.rows.map((row: { kind: string; id: string }) => `${row.kind}:${row.id}`));
      total = page.total;
      offset = page.next_offset;
    }
    expect(total).toBeGreaterThan(256);
    expect(seen).toHaveLength(total);
    const text = await fairway('--ledger', ledger, 'state', '--limit', '256');
    expect(text.out).toMatch(/^rows 1-(\d+) of \d+ \(next: --offset \1\)$/m);
  });
});

describe('trace pages', () => {
  it('text says when more events follow (next offset), as state does; --json carries next_offset', async () => {
    const ledger = join(mkdtempSync(join(tmpdir(), 'fairway-trace-page-')), 'demo.jsonl');
    expect((await fairway('demo', '--out', ledger)).code).toBe(0);
    const all = JSON.parse((await fairway('--ledger', ledger, '--json', '--request-id', 'dispatch-1000', 'trace')).out);
    expect(all.total).toBeGreaterThan(3);
    expect(all.next_offset).toBeNull();
    const first = await fairway('--ledger', ledger, '--request-id', 'dispatch-1000', 'trace', '--limit', '3');
    expect(first.out.trim().split('\n')).toHaveLength(4);
    expect(first.out).toMatch(new RegExp(`^events 1-3 of ${all.total} \\(next: --offset 3\\)$`, 'm'));
    expect(JSON.parse((await fairway('--ledger', ledger, '--json', '--request-id', 'dispatch-1000', 'trace', '--limit', '3')).out).next_offset).toBe(3);
    const last = await fairway('--ledger', ledger, '--request-id', 'dispatch-1000', 'trace', '--offset', String(all.total - 1));
    expect(last.out).toMatch(new RegExp(`^events ${all.total}-${all.total} of ${all.total}$`, 'm'));
    const whole = await fairway('--ledger', ledger, '--request-id', 'dispatch-1000', 'trace');
    expect(whole.out.trim().split('\n')).toHaveLength(all.total); // one page: no footer
  });
});

describe('inspect --work-id ownership', () => {
  it('names the current Claim among the attempts and each attempt\'s native-run barrier, as state --json and replay do', async () => {
    const ledger = join(mkdtempSync(join(tmpdir(), 'fairway-inspect-owner-')), 'demo.jsonl');
    expect((await fairway('demo', '--out', ledger)).code).toBe(0);
    const rows = JSON.parse((await fairway('--ledger', ledger, '--json', 'state', '--state', 'claimed')).out).rows;
    const work = rows.find((r: { kind: string }) => r.kind === 'work');
    const groups = JSON.parse((await fairway('--ledger', ledger, '--json', 'replay')).out).dispatch_groups as Array<{ dispatch_id: string; released: boolean }>;
    const view = JSON.parse((await fairway('--ledger', ledger, '--json', 'inspect', '--work-id', work.work_id)).out);
    expect(view.current_claim).toBe(work.owner.claim_id);
    for (const c of view.claims) {
      expect(c.current).toBe(c.claim_id === work.owner.claim_id);
      expect(c.native_run.released).toBe(groups.find((g) => g.dispatch_id === c.dispatch_id)!.released);
    }
    expect((await fairway('--ledger', ledger, 'inspect', '--work-id', work.work_id)).out).toMatch(new RegExp(`^current_claim {6}${work.owner.claim_id}$`, 'm'));
  });

  it('readiness and reason are state\'s and replay\'s (ready | waiting | running | terminal), never a state or a reason in their place', async () => {
    const ledger = join(mkdtempSync(join(tmpdir(), 'fairway-inspect-readiness-')), 'demo.jsonl');
    expect((await fairway('demo', '--out', ledger)).code).toBe(0);
    const rows = JSON.parse((await fairway('--ledger', ledger, '--json', 'replay')).out).works; // the same vocabulary as state rows
    const seen = new Set<string>();
    for (const row of rows) {
      if (seen.has(`${row.readiness}/${row.reason}`)) continue; // one Work of each kind
      seen.add(`${row.readiness}/${row.reason}`);
      const view = JSON.parse((await fairway('--ledger', ledger, '--json', 'inspect', '--work-id', row.work_id)).out);
      expect({ readiness: view.readiness, reason: view.reason, blocking_path: view.blocking_path }, row.node_key)
        .toEqual({ readiness: row.readiness, reason: row.reason, blocking_path: expect.any(Array) });
    }
    expect([...seen].map((k) => k.split('/')[0]).sort()).toEqual(expect.arrayContaining(['ready', 'running', 'terminal', 'waiting']));
  });
});
