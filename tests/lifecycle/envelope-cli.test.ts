/**
 * The full operating-envelope cycle through the real CLI on a real local Git repository with the
 * fake GitHub (spec 7.17, issue 11 §1): a drained queue installs a small admission watermark;
 * one Claim is launched and bound; submits fill the queue until new Work is refused with
 * `ledger_limit`; a new grant (dispatch-next) is refused the same way with the remaining budget
 * in its details and writes nothing; the bound Claim still finishes, gets its Result and its
 * dispatch releases inside the recovery reserve past the watermark; `stats` reports the envelope
 * and warns; `compact` reopens admission for both Work and grants.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setRunStatus, findRun } from '../fake-github/routes-actions.ts';
import { runFairway } from '../support/cli.ts';
import { git } from '../support/fixture-repo.ts';
import { benchCli as cli, dispatcherEnv, isolateBenchEnvironment, workerEnv } from '../support/lifecycle-bench.ts';
import { createBench, TOKEN, type Bench } from './harness.ts';

let bench: Bench;
isolateBenchEnvironment(() => bench);

const ledger = (b: Bench): string => `${git(b.dir, 'show', 'refs/heads/work-queue:work-queue.jsonl')}\n`;
const size = (b: Bench): number => Buffer.byteLength(ledger(b));
const tip = (b: Bench): string => git(b.dir, 'rev-parse', 'refs/heads/work-queue');

describe('operating envelope end to end (fill → refuse → close inside the reserve → compact → admit)', () => {
  it('refuses new Work and new grants at the watermark, still finishes, records the Result and releases, and admits again after compact', async () => {
    bench = await createBench();
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const files = mkdtempSync(join(bench.dir, 'envelope-'));
    const file = (name: string, value: unknown): string => {
      const path = join(files, name);
      writeFileSync(path, JSON.stringify(value));
      return path;
    };

    // Drain the seeded queue, then install the same Policy with a small admission watermark.
    const seed = (await bench.projection()).works().next().value!;
    expect((await cli(bench, 'cancel-work', '--work-id', seed.workId, '--reason', 'operator_cancelled')).code).toBe(0);
    const policy = JSON.parse(ledger(bench).split('\n')[0]!).operations[0].policy;
    const watermark = size(bench) + 30_000;
    policy.limits.ledger_bytes = watermark;
    const installed = await cli(bench, 'policy', '--file', file('small.json', policy), '--epoch', 'small');
    expect(installed.code, JSON.stringify(installed.json)).toBe(0);

    // One Claim launched and bound (grant, start marker, binding), while admission is open.
    expect((await cli(bench, 'submit-work', '--file', file('w0.json', { p: 'first' }), '--node-key', 'w0')).code).toBe(0);
    expect((await cli(bench, 'submit-work', '--file', file('w1.json', { p: 'second' }), '--node-key', 'w1')).code).toBe(0);
    dispatcherEnv();
    const launched = await cli(bench, '--request-id', 'env-d1', 'launch', '--next', '--max-claims', '1');
    expect(launched.code, JSON.stringify(launched.json)).toBe(0);
    const [l] = launched.json.launches;
    expect(l).toMatchObject({ outcome: 'bound' });

    // Fill: submits of ~2 KB until the next is refused before it writes.
    let refused: any = null;
    for (let i = 2; i < 40 && refused === null; i++) {
      const before = tip(bench);
      const r = await cli(bench, 'submit-work', '--file', file(`w${i}.json`, { p: 'x'.repeat(2000) }), '--node-key', `w${i}`);
      if (r.code === 0) continue;
      refused = r.json;
      expect(tip(bench), 'a refused submit moves nothing').toBe(before);
    }
    expect(refused?.error?.code, JSON.stringify(refused)).toBe('ledger_limit');
    // Top up with one padded submit so that less than one grant commit remains.
    const tiny = await cli(bench, 'submit-work', '--file', file('t0.json', { t: 1 }), '--node-key', 'tt');
    const tinyBytes = Buffer.byteLength(ledger(bench).split('\n').at(-2)!) + 1;
    if (tiny.code === 0) {
      const remaining = watermark - size(bench);
      const pad = remaining - tinyBytes - 120;
      if (pad > 0) expect((await cli(bench, 'submit-work', '--file', file('t1.json', { t: 'x'.repeat(pad) }), '--node-key', 'tu')).code).toBe(0);
    }
    const full = size(bench);
    expect(watermark - full).toBeLessThan(600);

    // A new grant is admission: refused with the remaining budget, nothing written.
    const before = { tip: tip(bench), bytes: ledger(bench) };
    const grant = await cli(bench, 'dispatch-next', '--max-claims', '1');
    expect(grant.json?.error?.code, JSON.stringify(grant.json)).toBe('ledger_limit');
    expect(grant.json.error.details).toMatchObject({ limit: 'ledger_bytes', watermark, admission_remaining: watermark - full });
    expect(grant.json.error.details.ledger_bytes).toBeGreaterThan(watermark);
    expect(tip(bench)).toBe(before.tip);
    expect(ledger(bench)).toBe(before.bytes);

    // stats: the same numbers, and the warning on the terminal.
    const stats = await cli(bench, 'stats');
    expect(stats.json.envelope).toMatchObject({ bytes: full, ledger_bytes: watermark, admission_remaining: watermark - full, warning: 'near_watermark' });
    expect(stats.json.envelope.reserve).toBeGreaterThan(0);
    let text = '';
    let warned = '';
    await runFairway(['--repo', bench.dir, 'stats'], { out: (s) => (text += s), err: (s) => (warned += s) });
    expect(text).toContain(`ledger ${full} of ${watermark} bytes`);
    expect(warned).toContain('80%');

    // Closure inside the reserve: finish, Result, Release all commit past the watermark.
    const dir = mkdtempSync(join(bench.dir, 'worker-'));
    writeFileSync(join(dir, 'assignment.json'), String(findRun(bench.fake.state, l.run_id)!.inputs.work_queue_assignment));
    workerEnv(l.run_id);
    const activated = await cli(bench, 'activate', '--assignment', join(dir, 'assignment.json'), '--out', join(dir, 'verified.json'));
    expect(activated.json, JSON.stringify(activated.json)).toMatchObject({ ok: true });
    const finished = await cli(bench, 'finish', '--dispatch-id', l.dispatch_id, '--handle', 'h1', '--outcome', 'completed');
    expect(finished.json, JSON.stringify(finished.json)).toMatchObject({ ok: true, status: 'committed' });
    const claimId = activated.json.assignment.claims[0].claim_id;
    writeFileSync(join(dir, 'descriptor.json'), JSON.stringify({ summary: 'done' }));
    writeFileSync(join(dir, 'receipts.json'), JSON.stringify({ schema: 'fairway.delivery/1', dispatch_id: l.dispatch_id, claim_id: claimId, run_id: l.run_id, complete: true, outputs: [] }));
    const result = await cli(bench, 'result', '--claim-id', claimId, '--descriptor', join(dir, 'descriptor.json'), '--evidence', join(dir, 'receipts.json'));
    expect(result.json, JSON.stringify(result.json)).toMatchObject({ ok: true, outcome: 'result' });
    setRunStatus(bench.fake.state, l.run_id, 'completed', 'success');
    const reconciled = await cli(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(reconciled.json.reconciled).toEqual([expect.objectContaining({ dispatch_id: l.dispatch_id, outcome: 'released' })]);
    const closed = size(bench);
    expect(closed, 'closure used the reserve past the watermark').toBeGreaterThan(watermark);
    const p = await bench.replayValid();
    expect(p.work(p.claim(claimId)!.workId)!.barrier).toBe('verified');
    expect(p.dispatch(l.dispatch_id)!.released).toBe(true);

    // Still no admission past the watermark.
    for (const k of ['GITHUB_RUN_ID', 'GITHUB_RUN_ATTEMPT', 'GITHUB_REPOSITORY', 'GITHUB_WORKFLOW_REF']) delete process.env[k];
    expect((await cli(bench, 'submit-work', '--file', file('late.json', { t: 2 }), '--node-key', 'late')).json.error.code).toBe('ledger_limit');

    // compact: the budget is measured on the retained ledger; Work and grants are admitted again.
    const compact = await cli(bench, 'compact');
    expect(compact.code, JSON.stringify(compact.json)).toBe(0);
    expect(size(bench)).toBeLessThan(full);
    const after = await cli(bench, 'stats');
    expect(after.json.envelope.bytes).toBe(size(bench));
    expect(after.json.envelope.admission_remaining).toBe(watermark - size(bench));
    const admitted = await cli(bench, 'submit-work', '--file', file('again.json', { t: 3 }), '--node-key', 'again');
    expect(admitted.code, JSON.stringify(admitted.json)).toBe(0);
    const regrant = await cli(bench, 'dispatch-next', '--max-claims', '1');
    expect(regrant.code, JSON.stringify(regrant.json)).toBe(0);
    expect(regrant.json.claims).toHaveLength(1);
  });
});
