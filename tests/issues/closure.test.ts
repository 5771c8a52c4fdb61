/**
 * Closure of backing Issues (operator reference "Backing Issues": "Issues stay open by
 * default. ... An authorized operator may install a projector rule's `completion_policy:
 * close-on-result` before Work admission; closure still requires a verified non-PR Result
 * and current target authority. Later policy expansion cannot retroactively authorize
 * closure. Agent payload fields ... never control closure. PR delivery alone never
 * authorizes closure."). On the fake GitHub, with the real projector and a real Git ledger.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import { policyOf } from '../acceptance/queue.ts';
import { issueBench, issuesOf, labelsOf, type IssueBench } from './bench.ts';
import { policyWith, projectorActor, rule } from './rules.ts';

let bench: IssueBench | null = null;
afterEach(async () => {
  await bench?.close();
  bench = null;
});

const CLOSE = policyWith([rule({ completion_policy: 'close-on-result' })]);

/** Grant, bind, complete and verify the next Work with `outputs`; returns its ids. */
async function deliver(b: IssueBench, outputs: Array<{ type: string }>): Promise<{ workId: string; dispatchId: string }> {
  const g = await b.grant();
  await b.finish(g.claimId, 'completed');
  await b.result(g.workId, outputs);
  return g;
}

function issueOfWork(b: IssueBench, report: { targets: Array<{ work_id: string; issue: { number: string | null } }> }, workId: string) {
  const n = Number(report.targets.find((t) => t.work_id === workId)!.issue.number);
  return issuesOf(b).find((i) => i.number === n)!;
}

describe('backing Issues: close-on-result', () => {
  it('a close-on-result rule installed before admission closes the Issue on a verified non-PR Result, once; a human reopening is respected', async () => {
    bench = await issueBench([{ node_key: 'n', payload: {} }], { policy: CLOSE });
    const p = () => bench!.projector({ actor: projectorActor });
    await p().sync();
    const { workId } = await deliver(bench, [{ type: 'create_issue' }]);
    const report = await p().sync();
    const issue = issueOfWork(bench, report, workId);
    expect(labelsOf(bench, issue.number)).toEqual(['work', 'work:done']);
    expect(issue.state).toBe('closed');
    expect(issue.state_reason).toBe('completed');
    expect(report.targets[0]!.closure).toBe('closed');
    // Recorded in the journal: the next run sends nothing and reports it closed earlier.
    const again = await p().sync();
    expect(again.targets[0]!.closure).toBe('closed_earlier');
    expect(again.requests.github_writes).toBe(0);
    // A human reopens it: closure was done once, it is not forced again.
    issue.state = 'open';
    issue.updatedAt = new Date(Date.now() + 5000).toISOString().replace(/\.\d+Z$/, 'Z');
    await p().sync();
    expect(issue.state).toBe('open');
  });

  it('a Work already verified at its first projection is created, commented and closed in one run', async () => {
    bench = await issueBench([{ node_key: 'n', payload: {} }], { policy: CLOSE });
    const { workId } = await deliver(bench, [{ type: 'create_issue' }]);
    const report = await bench.projector({ actor: projectorActor }).sync();
    const issue = issueOfWork(bench, report, workId);
    expect(issue.state).toBe('closed');
    expect(report.targets[0]!.closure).toBe('closed');
    expect(report.targets[0]!.comments.every((c) => c.outcome === 'created')).toBe(true);
  });

  it('without a projector rule the Issue stays open (Issues stay open by default), even for a payload asking to close', async () => {
    bench = await issueBench([{ node_key: 'n', payload: { issue_completion_policy: 'close-on-result' } }]);
    const { workId } = await deliver(bench, [{ type: 'create_issue' }]);
    const report = await bench.projector({ actor: projectorActor }).sync();
    const issue = issueOfWork(bench, report, workId);
    expect(labelsOf(bench, issue.number)).toEqual(['work', 'work:done']);
    expect(issue.state).toBe('open');
    expect(report.targets[0]!.closure).toBeNull();
  });

  it('a rule installed after the Work\'s admission does not close its Issue (no retroactive closure)', async () => {
    bench = await issueBench([{ node_key: 'n', payload: {} }], { policy: policyWith([]) });
    const { workId, dispatchId } = await deliver(bench, [{ type: 'create_issue' }]);
    await bench.release(dispatchId);
    await bench.policy('epoch-2', CLOSE); // the queue is quiescent: the Work is verified, its run released
    const report = await bench.projector({ actor: projectorActor }).sync();
    expect(report.targets[0]!.status).toBe('done');
    expect(issueOfWork(bench, report, workId).state).toBe('open');
    expect(report.targets[0]!.closure).toBeNull();
    // A Work admitted after the rule is closed by the same projector.
    await bench.submit([{ node_key: 'later', payload: {} }]);
    const later = await deliver(bench, [{ type: 'create_issue' }]);
    const next = await bench.projector({ actor: projectorActor }).sync();
    expect(issueOfWork(bench, next, later.workId).state).toBe('closed');
  });

  it('verified pull-request delivery (needs-review) and DeliveryFailure (failed) never close', async () => {
    bench = await issueBench([{ node_key: 'pr', payload: {} }, { node_key: 'bad', payload: {} }], { policy: CLOSE });
    const pr = await deliver(bench, [{ type: 'create_pull_request' }]);
    const g = await bench.grant();
    await bench.finish(g.claimId, 'completed');
    await bench.deliveryFailure(g.workId);
    const report = await bench.projector({ actor: projectorActor }).sync();
    const byWork = Object.fromEntries(report.targets.map((t) => [t.work_id, t]));
    expect(byWork[pr.workId]!.status).toBe('needs-review');
    expect(byWork[g.workId]!.status).toBe('failed');
    for (const id of [pr.workId, g.workId]) {
      expect(issueOfWork(bench, report, id).state).toBe('open');
      expect(byWork[id]!.closure).toBeNull();
    }
  });

  it('without current target authority the Issue stays open: another projector revision, or a later Policy without the rule', async () => {
    bench = await issueBench([{ node_key: 'n', payload: {} }], { policy: CLOSE });
    const { workId, dispatchId } = await deliver(bench, [{ type: 'create_issue' }]);
    // The projecting workflow moved to another revision the rule does not name.
    const moved = await bench.projector({ actor: projectorActor, projectorRef: 'b'.repeat(40) }).sync();
    expect(moved.targets[0]!.status).toBe('done');
    expect(issueOfWork(bench, moved, workId).state).toBe('open');
    expect(moved.targets[0]!.closure).toBeNull();
    // A run without a workflow identity (a local operator sync) holds no rule either.
    const local = await bench.projector().sync();
    expect(local.targets[0]!.closure).toBeNull();
    // The operator installs a Policy without the rule: the admission-time rule alone is not enough.
    await bench.release(dispatchId);
    await bench.policy('epoch-2', policyOf() as JsonObject);
    const after = await bench.projector({ actor: projectorActor }).sync();
    expect(issueOfWork(bench, after, workId).state).toBe('open');
    expect(after.targets[0]!.closure).toBeNull();
  });

  it('--dry-run names the closure it would make and makes none', async () => {
    bench = await issueBench([{ node_key: 'n', payload: {} }], { policy: CLOSE });
    await bench.projector({ actor: projectorActor }).sync();
    const { workId } = await deliver(bench, [{ type: 'create_issue' }]);
    const dry = await bench.projector({ actor: projectorActor }).sync({ dryRun: true });
    expect(dry.would.filter((w) => w.method === 'PATCH' && w.what.includes('close-on-result'))).toHaveLength(1);
    expect(dry.targets[0]!.closure).toBe('due');
    expect(issueOfWork(bench, dry, workId).state).toBe('open');
  });
});
