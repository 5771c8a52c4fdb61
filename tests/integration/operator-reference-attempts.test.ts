/**
 * The operator reference's checked actions on Claim attempts
 * (../shared/spec/work-queues-operator-reference.md, "Keyboard browser and checked actions"):
 * "Completed ownership cannot be cancelled, and historical Claims cannot cancel a new attempt",
 * "one checked, all-or-nothing transaction", and "Priority overrides apply only to available
 * Work, including Work waiting for a retry" without moving its retry boundary; and from
 * "Operator commands", a Policy update's quiescence: no "unresolved delivery barriers for
 * completed Work". The states
 * need a real attempt history (a Completion, a failed run, a retry), so each step is the real
 * `fairway` CLI (`--json --dir`) on the lifecycle bench's real local Git queue with the GitHub
 * stand-in (tests/lifecycle/harness.ts); the read-side and plain write-side examples are in
 * operator-reference.test.ts and operator-reference-writes.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setRunStatus } from '../fake-github/routes-actions.ts';
import { isolateBenchEnvironment } from '../support/lifecycle-bench.ts';
import { activateRun, finishMember, fw, launchNext, noJob, writeReceipts } from '../support/recovery-cli.ts';
import { createBench, nodes, type Bench } from '../lifecycle/harness.ts';

let bench: Bench;
isolateBenchEnvironment(() => bench);

const tipOf = async (b: Bench): Promise<string> => (await fw(b, 'verify')).json.tip;

/** Waits until every available Work's trusted retry backoff has passed (the CLI reads the system clock). */
async function pastBackoff(b: Bench): Promise<void> {
  const p = await b.replayValid();
  const until = Math.max(0, ...[...p.state.works.values()].map((w) => Number(w.retryNotBefore ?? 0)));
  while (Date.now() <= until) await new Promise((r) => setTimeout(r, 20));
}

/**
 * One group of two Claims: A finishes completed, the run then fails, so reconcile cancels B's
 * Claim (run_terminal) and B waits for its retry.
 */
async function completedAndRetrying(): Promise<{ d: string; run: string; ca: string; cb: string; wa: string; wb: string }> {
  bench = await createBench({ maxClaims: 2, nodes: nodes('A', 'B'), retry: { max_attempts: 3, backoff_seconds: 1 } });
  const l = await launchNext(bench, 'dispatch-run-1', 2);
  expect(l.code, l.err).toBe(0);
  const { dispatch_id: d, run_id: run } = l.json.launches[0];
  const a = await activateRun(bench, run);
  const [ca, cb] = a.json.assignment.claims.map((c: { claim_id: string }) => c.claim_id) as [string, string];
  const [wa, wb] = a.json.assignment.claims.map((c: { work_id: string }) => c.work_id) as [string, string];
  expect((await finishMember(bench, run, d, 'h1', 'completed')).code).toBe(0);
  setRunStatus(bench.fake.state, run, 'completed', 'failure');
  noJob();
  const r = await fw(bench, 'reconcile', '--dispatch-id', d, '--interval-ms', '0');
  expect(r.json.reconciled).toEqual([expect.objectContaining({ outcome: 'released' })]);
  return { d, run, ca, cb, wa, wb };
}

describe('operator reference: checked actions on Claim attempts', () => {
  it('cancel-claim: completed ownership cannot be cancelled, and a historical Claim cannot cancel the new attempt (claim_terminal, nothing written); inspect shows historical and current ownership', async () => {
    const { ca, cb, wa, wb } = await completedAndRetrying();
    expect((await fw(bench, 'inspect', '--claim-id', ca)).json.state).toBe('completed');
    const before = await tipOf(bench);
    const completed = await fw(bench, 'cancel-claim', '--claim-id', ca, '--reason', 'operator_cancelled');
    expect([completed.code, completed.json.error.code]).toEqual([3, 'claim_terminal']);
    expect(await tipOf(bench)).toBe(before);
    expect((await fw(bench, 'inspect', '--work-id', wa)).json.state).toBe('completed');

    await pastBackoff(bench);
    const l2 = await launchNext(bench, 'dispatch-run-2', 2);
    expect(l2.code, l2.err).toBe(0);
    noJob();
    const b = (await fw(bench, 'inspect', '--work-id', wb)).json;
    const cb2 = b.current_claim as string;
    expect([b.state, cb2 === cb]).toEqual(['claimed', false]);
    // inspect --work-id: current and historical ownership; inspect --claim-id: the original assignment membership.
    expect(b.claims.map((c: { claim_id: string; state: string; cancel_reason: string | null; current: boolean; native_run: { released: boolean } }) => [c.claim_id, c.state, c.cancel_reason, c.current, c.native_run.released]))
      .toEqual([[cb, 'cancelled', 'run_terminal', false, true], [cb2, 'open', null, true, false]]);
    expect((await fw(bench, 'inspect', '--claim-id', cb)).json.dispatch.members).toEqual([ca, cb]);
    const at = await tipOf(bench);
    const historical = await fw(bench, 'cancel-claim', '--claim-id', cb, '--reason', 'operator_cancelled');
    expect([historical.code, historical.json.error.code]).toEqual([3, 'claim_terminal']);
    // All or nothing: the open attempt beside a terminal Claim is not cancelled either.
    const mixed = await fw(bench, 'cancel-claim', '--claim-id', `${cb2},${ca}`, '--reason', 'operator_cancelled');
    expect([mixed.code, mixed.json.error.code]).toEqual([3, 'claim_terminal']);
    expect(await tipOf(bench)).toBe(at);
    expect((await fw(bench, 'inspect', '--work-id', wb)).json).toMatchObject({ state: 'claimed', current_claim: cb2 });
    // The current attempt itself is cancellable; its reservation stays.
    const current = await fw(bench, 'cancel-claim', '--claim-id', cb2, '--reason', 'operator_cancelled');
    expect(current.code, JSON.stringify(current.json)).toBe(0);
    expect((await fw(bench, 'inspect', '--work-id', wb)).json.state).toBe('cancelled');
    expect((await fw(bench, 'stats')).json.pools[0].native_outstanding).toBe(1);
  });

  it('reprioritize: Work waiting for a retry is available and takes the override; its retry boundary, attempts and fairness charges stay', async () => {
    const { wb } = await completedAndRetrying();
    const waiting = (await fw(bench, 'inspect', '--work-id', wb)).json;
    expect(waiting).toMatchObject({ state: 'available', reason: 'retry_delayed', attempts: 1 });
    expect(waiting.retry_not_before).not.toBeNull();
    const fairness = (await fw(bench, 'replay')).json.fairness;
    const up = await fw(bench, 'reprioritize', '--work-id', wb, '--priority', '1', '--reason', 'operator_reprioritized');
    expect(up.code, JSON.stringify(up.json)).toBe(0);
    const after = (await fw(bench, 'inspect', '--work-id', wb)).json;
    expect(after).toMatchObject({ state: 'available', reason: 'retry_delayed', attempts: 1, retry_not_before: waiting.retry_not_before, priority: 3, effective_priority: 1 });
    expect((await fw(bench, 'replay')).json.fairness).toEqual(fairness);
  });

  it('policy --file policy.json --epoch EPOCH: an unresolved delivery barrier of completed Work keeps the queue from being quiescent; its verified Result resolves it', async () => {
    const { d, run, ca, wb } = await completedAndRetrying();
    expect((await fw(bench, 'cancel-work', '--work-id', wb, '--reason', 'drained')).code).toBe(0);
    const p = (await fw(bench, 'replay')).json;
    expect([p.summary.works.by_state, p.reservations.native]).toEqual([{ available: 0, claimed: 0, completed: 1, cancelled: 1 }, {}]);
    const dir = mkdtempSync(join(bench.dir, 'policy-'));
    const policyFile = join(dir, 'policy.json');
    writeFileSync(policyFile, JSON.stringify({ ...p.policy.policy, class_weights: [9, 4, 2, 1, 1] }));
    const tip = await tipOf(bench);
    const pending = await fw(bench, 'policy', '--file', policyFile, '--epoch', 'epoch-2');
    expect([pending.code, pending.json.error.code, await tipOf(bench)]).toEqual([3, 'policy_not_quiescent', tip]);
    expect(pending.json.error.message).toMatch(/1 nonterminal or delivery-pending Work/);
    const result = await fw(bench, 'result', '--claim-id', ca, '--evidence', writeReceipts(dir, d, ca, run));
    expect(result.json).toMatchObject({ outcome: 'result', verified: true });
    const installed = await fw(bench, 'policy', '--file', policyFile, '--epoch', 'epoch-2');
    expect([installed.code, installed.json.kind]).toEqual([0, 'policy']);
    expect((await fw(bench, 'replay')).json.policy).toMatchObject({ epoch: 'epoch-2', policy: { class_weights: [9, 4, 2, 1, 1] } });
  });
});
