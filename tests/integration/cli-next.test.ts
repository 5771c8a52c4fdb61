/**
 * `fairway next` (issue 14 §1) through the real entry point on a real local Git
 * repository: the line is the grant order the real dispatcher then commits,
 * its first entry is `explain`'s pick, a Work's position counts the grants
 * ahead of it, and Work not in the line says why.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runFairway } from '../support/cli.ts';
import { fixtureRepo } from '../support/fixture-repo.ts';

async function cli(repo: string, ...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await runFairway(['--repo', repo, '--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

async function text(repo: string, ...args: string[]): Promise<string> {
  let out = '';
  const code = await runFairway(['--repo', repo, ...args], { out: (s) => (out += `${s}\n`), err: (s) => (out += `${s}\n`) });
  expect(code, out).toBe(0);
  return out;
}

let repo: string;
let ids: Record<string, string>;

beforeEach(async () => {
  repo = fixtureRepo('fairway-next-');
  const files = mkdtempSync(join(tmpdir(), 'fairway-next-files-'));
  const nodes = [
    { node_key: 'low-1', payload: {}, priority: 5 },
    { node_key: 'normal-1', payload: {}, priority: 3 },
    { node_key: 'normal-2', payload: {}, priority: 3 },
    { node_key: 'urgent-1', payload: {}, priority: 1 },
    { node_key: 'normal-3', payload: {}, priority: 3 },
    { node_key: 'waits', payload: {}, priority: 1, depends_on: [{ kind: 'work', node_key: 'normal-1' }] },
  ];
  const path = join(files, 'g.json');
  writeFileSync(path, JSON.stringify(nodes));
  const seed = await cli(repo, '--request-id', 'seed', 'submit-graph', '--file', path, '--graph-id', 'release');
  expect(seed.code, JSON.stringify(seed.json)).toBe(0);
  ids = Object.fromEntries(nodes.map((n, i) => [n.node_key, seed.json.work_ids[i] as string]));
});

describe('fairway next: the predicted line of a pool', () => {
  it('lists every ready Work in the order the real dispatcher then grants it; the first is explain\'s pick', async () => {
    const r = await cli(repo, 'next', '--pool', 'default');
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    expect(r.json.ok).toBe(true);
    const order = r.json.entries.map((e: any) => e.node_key);
    // 'waits' depends on normal-1 (not ready): not in the line.
    expect([...order].sort()).toEqual(['low-1', 'normal-1', 'normal-2', 'normal-3', 'urgent-1']);
    expect(r.json.entries.map((e: any) => e.position)).toEqual([1, 2, 3, 4, 5]);
    expect(r.json.end).toBe('no_eligible_work'); // 'waits' is available but gated
    expect(r.json.truncated).toBe(false);
    expect(r.json.available).toBe(6);
    const explain = await cli(repo, 'explain', '--pool', 'default');
    expect(explain.json.work.work_id).toBe(r.json.entries[0].work_id);

    const granted: string[] = [];
    for (let i = 0; i < 3; i++) {
      const g = await cli(repo, '--request-id', `grant-${i}`, 'dispatch-next', '--max-claims', '1');
      expect(g.code, JSON.stringify(g.json)).toBe(0);
      granted.push(g.json.claims[0].work_id as string);
    }
    expect(granted).toEqual(r.json.entries.slice(0, 3).map((e: any) => e.work_id));
  });

  it('--limit shows the first N and says more follows; --work-id gives its position, the grants ahead and the Work before it', async () => {
    const all = (await cli(repo, 'next', '--pool', 'default')).json.entries;
    const limited = await cli(repo, 'next', '--pool', 'default', '--limit', '2');
    expect(limited.json.entries).toEqual(all.slice(0, 2));
    expect(limited.json.truncated).toBe(true);

    const third = all[2];
    const w = await cli(repo, 'next', '--pool', 'default', '--limit', '1', '--work-id', third.work_id);
    expect(w.code).toBe(0);
    expect(w.json.entries).toHaveLength(1);
    expect(w.json.work).toMatchObject({ work_id: third.work_id, in_line: true, reason: null });
    const inClass = all.slice(0, 2).filter((e: any) => e.priority === third.priority).length;
    expect(w.json.work.position).toMatchObject({ position: 3, ahead: 2, aheadInClass: inClass, after: { workId: all[1].work_id, nodeKey: all[1].node_key } });
    // A unique prefix of 8+ characters names the same Work (README: every --work-id).
    const byPrefix = await cli(repo, 'next', '--pool', 'default', '--limit', '1', '--work-id', String(third.work_id).slice(0, 8));
    expect(byPrefix.json.work).toEqual(w.json.work);
    expect(w.json.work.text).toContain(`3rd; ${inClass} grant${inClass === 1 ? '' : 's'} ahead in P${third.priority}; next after ${all[1].node_key}`);
    // No Claims yet: no rate, so no estimate in time.
    expect(w.json.rate).toBeNull();
    expect(w.json.work.position.estimateMs).toBeNull();
  });

  it('a Work not in the line says why (its eligibility reason); after grants the estimate comes from the grant rate', async () => {
    const waits = await cli(repo, 'next', '--pool', 'default', '--work-id', ids.waits!);
    expect(waits.json.work).toMatchObject({ in_line: false, position: null, reason: 'dependency_wait' });
    for (let i = 0; i < 2; i++) await cli(repo, '--request-id', `grant-${i}`, 'dispatch-next', '--max-claims', '1');
    const rest = await cli(repo, 'next', '--pool', 'default');
    expect(rest.json.entries).toHaveLength(3);
    expect(rest.json.rate).toMatchObject({ grants: 2 });
    // In words, the rate names the span it comes from (two grants a moment apart extrapolate far).
    const words = await text(repo, 'next', '--pool', 'default');
    expect(words).toMatch(/recent grant rate: [\d.]+\/h over the last 2 grants, \d+[dhms](?: \d+[hms])? apart/);
    const last = rest.json.entries[2];
    const at = await cli(repo, 'next', '--pool', 'default', '--work-id', last.work_id);
    const p = at.json.work.position;
    expect(p.ahead).toBe(2);
    expect(p.estimateMs).toBe(Math.round((2 / p.rate.perHour) * 3_600_000));
    expect(at.json.work.text).toContain('from the last 2 grants; an estimate, not a promise');
    const granted = await cli(repo, 'next', '--pool', 'default', '--work-id', (await cli(repo, 'explain', '--request-id', 'grant-0')).json.claims[0].work_id);
    expect(granted.json.work).toMatchObject({ in_line: false, state: 'claimed', reason: 'claimed' });
  });

  it('human output names each entry, the end of the line and what could change it', async () => {
    const out = await text(repo, 'next', '--pool', 'default', '--work-id', ids['urgent-1']!);
    expect(out).toContain('line of pool "default"');
    expect(out).toMatch(/>\s+1st {2}P1 key "" {2}urgent-1/);
    expect(out).toContain('the line ends: the rest of the ready Work is held (a fairness key at its per-account limit) or gated');
    expect(out).toContain('What could change it');
    expect(out).toContain('next to be granted');
  });

  it('bad input gets a stable code and changes nothing', async () => {
    expect((await cli(repo, 'next', '--pool', 'nosuch')).json.error.code).toBe('unknown_pool');
    expect((await cli(repo, 'next', '--pool', 'default', '--work-id', 'w_missing')).json.error.code).toBe('unknown_work');
    const bad = await cli(repo, 'next', '--pool', 'default', '--limit', '0');
    expect(bad.code).toBe(2);
    expect(bad.json.error.code).toBe('option_invalid');
    expect((await cli(repo, 'next', '--pool', 'default', '--as-of', 'soon')).json.error.code).toBe('invalid_as_of');
  });
});
