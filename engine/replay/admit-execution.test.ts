/**
 * `admitExecution` (ops/deployment.ts) reads an undeployed route straight from the installed
 * Policy instead of building `installedRoute`. Checked against the route-building rule it
 * replaces (`workerRoute` → current or pinned revision → contract): the same frozen contract
 * or the same error (code, message, location), for every Work of a generated ledger, with and
 * without a pin and an explicit contract, on installed and on deployed routes.
 */
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { fail, isProtocolError } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { QueueOperation } from '../schema/index.ts';
import { currentRevision, routeKey } from '../state/routes.ts';
import type { ReplayState, WorkerRoute } from '../state/state.ts';
import { where, type CommitContext, type OperationOf } from './context.ts';
import { replayLedger } from './index.ts';
import { admitExecution, installedContract, workerRoute } from './ops/deployment.ts';

type WorkOp = OperationOf<'Work'>;

/** The rule as it was written before: build the route, take its revision. */
function reference(ctx: CommitContext, op: WorkOp): void {
  const route = workerRoute(ctx.state, op.pool, op.worker_profile)!;
  let revision = currentRevision(route);
  if (op.execution_ref !== undefined) {
    const pinned = route.revisions.get(op.execution_ref);
    if (pinned === undefined) fail('execution_ref_unregistered', `execution_ref ${op.execution_ref} is not a registered revision of ${op.pool}/${op.worker_profile}`, where(ctx));
    revision = pinned;
  }
  if (op.admission_contract !== undefined && op.admission_contract !== revision.contract) {
    fail('contract_incompatible', `admission_contract ${op.admission_contract} is not the contract ${revision.contract} of the revision this Work would run`, where(ctx));
  }
  ctx.state.admissions.set(op.work_id, revision.contract);
}

function outcome(run: (ctx: CommitContext, op: WorkOp) => void, ctx: CommitContext, op: WorkOp): unknown {
  ctx.state.admissions.delete(op.work_id);
  try {
    run(ctx, op);
    return { contract: ctx.state.admissions.get(op.work_id) };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, message: e.message, commit: e.commit, line: e.line, operation: e.operation, path: e.path, details: e.details };
  }
}

describe('admitExecution ≡ the route-building rule', () => {
  const projection = replayLedger(generateLedger(256 * 1024, 3).text);
  const state = projection.state as ReplayState;
  const works: WorkOp[] = [...projection.works()].map((w) => w.definition as unknown as WorkOp);

  function variants(op: WorkOp, refs: string[], contracts: string[]): WorkOp[] {
    const out: WorkOp[] = [op];
    for (const ref of [...refs, 'f'.repeat(40)]) out.push({ ...op, execution_ref: ref });
    for (const c of [...contracts, 'not-a-contract']) {
      out.push({ ...op, admission_contract: c });
      for (const ref of refs) out.push({ ...op, execution_ref: ref, admission_contract: c });
    }
    return out;
  }

  /** How many variants were admitted and refused: both kinds must be exercised. */
  function check(): { admitted: number; refused: number } {
    const n = { admitted: 0, refused: 0 };
    for (const [i, work] of works.entries()) {
      const profile = state.policy!.policy.pools[work.pool]!.profiles[work.worker_profile]! as unknown as JsonObject;
      const route = state.deployments.get(routeKey(work.pool, work.worker_profile));
      const refs = route === undefined ? [String(profile.ref)] : [...route.revisions.keys()];
      const contracts = route === undefined ? [installedContract(profile)] : [...route.revisions.values()].map((r) => r.contract);
      const ctx: CommitContext = { state, commit: { id: `q_${i}` } as never, ordinal: i, index: i % 3, line: i % 2 === 0 ? undefined : i };
      for (const op of variants(work, refs, contracts)) {
        const fast = outcome(admitExecution as (c: CommitContext, o: QueueOperation) => void, ctx, op);
        expect(fast).toEqual(outcome(reference, ctx, op));
        if ((fast as { code?: string }).code === undefined) n.admitted++;
        else n.refused++;
      }
    }
    return n;
  }

  it('on installed routes', () => {
    expect(works.length).toBeGreaterThan(20);
    expect(state.deployments.size).toBe(0);
    const n = check();
    expect(n.admitted).toBeGreaterThan(50);
    expect(n.refused).toBeGreaterThan(50);
  });

  it('on deployed routes (current revision, an older one, an unavailable one)', () => {
    const saved = new Map(state.admissions);
    for (const work of works) {
      const key = routeKey(work.pool, work.worker_profile);
      if (state.deployments.has(key)) continue;
      const profile = state.policy!.policy.pools[work.pool]!.profiles[work.worker_profile]! as unknown as JsonObject;
      const route: WorkerRoute = {
        currentRef: 'b'.repeat(40),
        revisions: new Map([
          [String(profile.ref), { profile, contract: installedContract(profile), available: true }],
          ['b'.repeat(40), { profile: { ...profile, ref: 'b'.repeat(40) }, contract: 'c'.repeat(64), available: true }],
          ['e'.repeat(40), { profile: { ...profile, ref: 'e'.repeat(40) }, contract: 'd'.repeat(64), available: false }],
        ]),
      };
      state.deployments.set(key, route);
    }
    try {
      const n = check();
      expect(n.admitted).toBeGreaterThan(50);
      expect(n.refused).toBeGreaterThan(50);
    } finally {
      state.deployments.clear();
      state.admissions.clear();
      for (const [k, v] of saved) state.admissions.set(k, v);
    }
  });
});
