/**
 * `dispatch-next` that finds nothing to grant (spec 7.7: a no-grant evaluation writes
 * nothing; spec 7.13 receipt): the real CLI on a real Git repository prints the no-grant
 * receipt engine/receipts builds, names the tip it evaluated, and leaves the branch alone.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { noGrantReceipt } from '../../engine/receipts/dispatch.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { control } from '../../engine/requests/lifecycle.ts';
import { bootstrapRequest } from '../../engine/requests/operations.ts';
import { LedgerWriter, defaultPolicy } from '../../engine/requests/writer.ts';
import { pack } from '../../engine/scheduler/pack.ts';
import { fixtureRepo, git, inputFiles, queueTip, repoCli } from '../support/fixture-repo.ts';

let repo: string;
let file: (name: string, value: unknown) => string;

beforeEach(() => {
  repo = fixtureRepo('fairway-no-grant-');
  file = inputFiles('fairway-no-grant-files-');
});

describe('dispatch-next with nothing to grant', () => {
  it('prints the no-grant receipt of the evaluated tip and writes nothing', async () => {
    expect((await repoCli(repo, 'submit-work', '--file', file('p.json', { a: 1 }))).code).toBe(0);
    expect((await repoCli(repo, 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident')).code).toBe(0);
    const before = queueTip(repo);
    const ledger = replayLedger(new TextEncoder().encode(`${git(repo, 'show', 'refs/heads/work-queue:work-queue.jsonl')}\n`));

    const r = await repoCli(repo, '--request-id', 'grant-none', 'dispatch-next', '--max-claims', '3', '--max-dispatches', '2');
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      ok: true,
      request_id: 'grant-none',
      source_commit: ledger.tip,
      commit_id: null,
      policy_epoch: ledger.policyEpoch,
      requested_claims: 3,
      granted_claims: 0,
      requested_dispatches: 2,
      reserved_dispatches: 0,
      status: 'no_grant',
      grant_status: 'no_grant',
      limiting_reason: 'grants_paused',
      claims: [],
      dispatches: [],
      explanation: expect.objectContaining({ reason: 'grants_paused' }),
    });
    expect(queueTip(repo)).toBe(before);

    let out = '';
    const code = await main(['--repo', repo, 'dispatch-next'], { out: (s) => (out += `${s}\n`), err: () => undefined });
    expect(code).toBe(0);
    expect(out).toBe(`no grant (grants_paused) at ${ledger.tip}; nothing was written\n`);
    expect(queueTip(repo)).toBe(before);
  });

  it('noGrantReceipt names the tip and epoch evaluated, what was requested, and the packer\'s stop reason and explanation', () => {
    const w = new LedgerWriter();
    const producer = { role: 'producer' as const, principal: '1001', repository: 'acme/app' };
    w.publish('boot', producer, 1000, bootstrapRequest(defaultPolicy({ repository: 'acme/app', principal: '1001' }), 'e1', [{ node_key: 'a', payload: {}, depends_on: [] }], { graphId: 'g', at: 1000 }));
    w.publish('pause', { ...producer, role: 'administrator' }, 2000, control('grants_paused', true, 'incident'));
    const plan = pack(w.state, { requestId: 'r', commitId: 'q', pool: 'default', max_claims: 2, max_dispatches: 1, max_bytes: 49152 }, 3000);
    expect(plan.claims).toEqual([]);
    expect(noGrantReceipt(w.projection, 'r', { max_claims: 2, max_dispatches: 1 }, plan)).toEqual({
      request_id: 'r', source_commit: w.projection.tip, commit_id: null, policy_epoch: 'e1',
      requested_claims: 2, granted_claims: 0, requested_dispatches: 1, reserved_dispatches: 0,
      status: 'no_grant', grant_status: 'no_grant', limiting_reason: 'grants_paused', claims: [], dispatches: [],
      explanation: plan.next.explanation,
    });
  });
});
