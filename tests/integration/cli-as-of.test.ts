/**
 * `--as-of MS` on the read views that evaluate readiness (`stats`, `state`, `inspect`), as
 * `next` and `explain` take it: one option definition and one parser (cli/parse.ts), so a
 * pinned console view (`?at=` a commit) or a script can be reproduced. The real CLI entry point
 * on a real local Git queue: a Work prelaunch-cancelled by `reconcile --cancel-reserved` waits
 * for its retry backoff (the pool's `backoff_ms` after the cancellation), so the same ledger is
 * waiting one millisecond before its retry_not_before and ready at it; a Work never granted is
 * ready throughout, its oldest-eligible age the as-of time minus its admission.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { dirCli, fixtureRepo, inputFiles, queueLedger } from '../support/fixture-repo.ts';

let repo: string;
const fairway = (...args: string[]) => dirCli(repo, ...args);

/** The retried Work, its retry boundary, and the never-granted Work with its admission time. */
let retried: string;
let rnb: number;
let fresh: string;
let freshAdmitted: number;

beforeAll(async () => {
  repo = fixtureRepo('fairway-as-of-');
  const file = inputFiles('fairway-as-of-files-');
  const a = await fairway('--json', 'submit-work', '--file', file('a.json', { task: 'a' }), '--node-key', 'retried');
  expect(a.code, a.out).toBe(0);
  retried = a.json.work_ids[0];
  const b = await fairway('--json', 'submit-work', '--file', file('b.json', { task: 'b' }), '--node-key', 'fresh');
  expect(b.code, b.out).toBe(0);
  fresh = b.json.work_ids[0];
  const grant = await fairway('--json', 'dispatch-next', '--max-claims', '1');
  expect(grant.code, grant.out).toBe(0);
  expect(grant.json.claims.map((c: { work_id: string }) => c.work_id)).toEqual([retried]);
  const cancelled = await fairway('--json', 'reconcile', '--dispatch-id', grant.json.claims[0].dispatch_id, '--cancel-reserved');
  expect(cancelled.code, cancelled.out).toBe(0);
  const w = (await fairway('--json', 'inspect', '--work-id', retried)).json;
  expect(w).toMatchObject({ state: 'available', attempts: 1 });
  rnb = w.retry_not_before;
  expect(Number.isSafeInteger(rnb)).toBe(true);
  const rows = (await fairway('--json', 'state', '--limit', '256')).json.rows;
  freshAdmitted = rows.find((r: { kind: string; work_id?: string }) => r.kind === 'work' && r.work_id === fresh).admitted_at;
  expect(freshAdmitted).toBeLessThan(rnb);
});

/** The `state --json` work row of `id` at `asOf`. */
async function stateRow(id: string, asOf: number): Promise<{ readiness: string; reason: string }> {
  const r = await fairway('--json', 'state', '--as-of', String(asOf));
  expect(r.code, r.out).toBe(0);
  return r.json.rows.find((row: { kind: string; work_id?: string }) => row.kind === 'work' && row.work_id === id);
}

/** `fairway_work_oldest_eligible_age_seconds` of the default pool's class 3 in `stats --format prometheus` at `asOf`. */
async function oldestAge(asOf: number): Promise<number> {
  const r = await fairway('stats', '--format', 'prometheus', '--as-of', String(asOf));
  expect(r.code, r.err).toBe(0);
  const line = r.out.split('\n').find((l) => l.startsWith('fairway_work_oldest_eligible_age_seconds{') && l.includes('pool="default"') && l.includes('class="3"'));
  expect(line, r.out).toBeDefined();
  return Number(line!.split(' ').at(-1));
}

/** Collapses an option's help (term and description, wrapped to each command's width) to one line. */
function asOfHelp(help: string): string {
  const m = /\n {2}--as-of <ms>([\s\S]*?)\n {2}-/.exec(help);
  expect(m, help).not.toBeNull();
  return m![1]!.replace(/\s+/g, ' ').trim();
}

describe('--as-of on stats, state and inspect (the decision time of next and explain)', () => {
  it('inspect --work-id: a Work in its retry backoff is retry_delayed one millisecond before retry_not_before and ready at it, as explain says at the same --as-of', async () => {
    const before = await fairway('--json', 'inspect', '--work-id', retried, '--as-of', String(rnb - 1));
    expect(before.code, before.out).toBe(0);
    expect(before.json).toMatchObject({ state: 'available', readiness: 'waiting', reason: 'retry_delayed', retry_not_before: rnb });
    const at = await fairway('--json', 'inspect', '--work-id', retried, '--as-of', String(rnb));
    expect(at.json).toMatchObject({ state: 'available', readiness: 'ready', reason: null, retry_not_before: rnb });
    // The same decision time gives explain's verdict.
    const explained = (asOf: number) => fairway('--json', 'explain', '--pool', 'default', '--work-id', retried, '--as-of', String(asOf));
    expect((await explained(rnb - 1)).json).toMatchObject({ reason: 'retry_delayed', eligible: false });
    expect((await explained(rnb)).json).toMatchObject({ eligible: true });
    // A Claim's view is the same at any time; its --as-of is still checked.
    const claim = (await fairway('--json', 'inspect', '--work-id', retried)).json.claims[0].claim_id;
    const c1 = await fairway('--json', 'inspect', '--claim-id', claim, '--as-of', String(rnb - 1));
    expect(c1.code, c1.out).toBe(0);
    expect((await fairway('--json', 'inspect', '--claim-id', claim, '--as-of', String(rnb))).json).toEqual(c1.json);
  });

  it('state: the work row\'s readiness and reason follow --as-of exactly', async () => {
    expect(await stateRow(retried, rnb - 1)).toMatchObject({ readiness: 'waiting', reason: 'retry_delayed' });
    expect(await stateRow(retried, rnb)).toMatchObject({ readiness: 'ready', reason: null });
    expect(await stateRow(fresh, rnb - 1)).toMatchObject({ readiness: 'ready', reason: null });
  });

  it('stats: the eligible count, as_of and the oldest-eligible age follow --as-of exactly', async () => {
    const stats = async (asOf: number) => {
      const r = await fairway('--json', 'stats', '--as-of', String(asOf));
      expect(r.code, r.out).toBe(0);
      return r.json;
    };
    const before = await stats(rnb - 1);
    expect(before.as_of).toBe(rnb - 1);
    expect(before.pools).toEqual([expect.objectContaining({ pool: 'default', available: 2, eligible: 1 })]);
    const at = await stats(rnb);
    expect(at.as_of).toBe(rnb);
    expect(at.pools).toEqual([expect.objectContaining({ pool: 'default', available: 2, eligible: 2 })]);
    // Before the retry is due only the never-granted Work is ready: its age is the decision time
    // minus its admission, to the millisecond.
    const t1 = freshAdmitted + 1_500;
    const t2 = freshAdmitted + 2_750;
    expect(t2).toBeLessThan(rnb);
    expect(await oldestAge(t1)).toBe(1.5);
    expect(await oldestAge(t2)).toBe(2.75);
  });

  it('a bad --as-of is next\'s own error (invalid_as_of, exit 2, the same message; an empty one option_invalid), before the queue is read; nothing is written', async () => {
    const before = queueLedger(repo);
    for (const value of ['soon', '-1', ' 5', '1.5', '9007199254740991', '']) {
      const expected = await fairway('--json', 'next', '--pool', 'default', '--as-of', value);
      const code = value === '' ? 'option_invalid' : 'invalid_as_of';
      expect([expected.code, expected.json.error.code]).toEqual([2, code]);
      for (const cmd of [['stats'], ['state'], ['inspect', '--work-id', retried]]) {
        const j = await fairway('--json', ...cmd, '--as-of', value);
        expect([j.code, j.json], `${cmd[0]} --as-of ${JSON.stringify(value)}`).toEqual([2, expected.json]);
        const h = await fairway(...cmd, '--as-of', value);
        expect(h.code).toBe(2);
        expect(h.err).toBe(`fairway: ${code}: ${expected.json.error.message}\n(see fairway ${cmd[0]} --help)\n`);
        // Parsed before anything is read, as next does: a missing --ledger is not reached.
        const unread = await dirCli(repo, '--ledger', '/nonexistent/work-queue.jsonl', '--json', ...cmd, '--as-of', value);
        expect([unread.code, unread.json.error.code]).toEqual([2, code]);
      }
    }
    // The last instant a Date holds is accepted, as by next.
    for (const cmd of [['stats'], ['state'], ['inspect', '--work-id', retried]]) expect((await fairway('--json', ...cmd, '--as-of', '8640000000000000')).code).toBe(0);
    expect(queueLedger(repo)).toEqual(before);
  });

  it('--help describes --as-of in the words of next and explain', async () => {
    const next = asOfHelp((await fairway('next', '--help')).out);
    expect(next).toBe(asOfHelp((await fairway('explain', '--help')).out));
    expect(next).toMatch(/^decision time in Unix milliseconds/);
    for (const cmd of ['stats', 'state', 'inspect']) expect(asOfHelp((await fairway(cmd, '--help')).out), cmd).toBe(next);
  });
});
