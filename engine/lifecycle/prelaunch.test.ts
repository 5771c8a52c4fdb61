import { describe, expect, it } from 'vitest';
import { decideReserved, grantingRunView, type GrantingRun } from './prelaunch.ts';
import type { NativeRunFacts } from './run-identity.ts';

const granting: GrantingRun = { repository: 'a/b', workflow: '.github/workflows/dispatcher.yml', run_id: '7', run_attempt: 2 };

function facts(status: string | null, workflow = '.github/workflows/dispatcher.yml'): NativeRunFacts {
  return {
    run_id: '7', run_attempt: 2, repository: 'a/b', workflow_path: `${workflow}@refs/heads/main`, head_sha: 'a'.repeat(40), event: 'schedule',
    actor_id: '1', triggering_actor_id: '1', display_title: 'dispatcher', status, conclusion: status === 'completed' ? 'cancelled' : null,
  };
}

describe('decideReserved (spec 7.8 "Reserved, no start marker")', () => {
  const decide = (granter: ReturnType<typeof grantingRunView> | null, o: { cancelReserved?: boolean; granting?: GrantingRun | null; readError?: string } = {}) =>
    decideReserved({ cancelReserved: o.cancelReserved ?? false, granting: o.granting === undefined ? granting : o.granting, granter, readError: o.readError ?? null });

  it('cancels prelaunch once the exact granting dispatcher attempt is terminal, or on request', () => {
    expect(decide(grantingRunView(granting, facts('completed')))).toEqual({ action: 'cancel' });
    expect(decide(null, { cancelReserved: true, granting: null })).toEqual({ action: 'cancel' });
  });
  it('keeps it while that run may still start it, when it is unknown or unreadable, and when the run id is another workflow\'s', () => {
    for (const status of ['queued', 'in_progress', 'waiting', null]) expect(decide(grantingRunView(granting, facts(status)))).toMatchObject({ action: 'keep' });
    expect(decide(null, { granting: null })).toMatchObject({ action: 'keep' });
    expect(decide(null, { readError: 'unavailable' })).toMatchObject({ action: 'keep', next: expect.stringContaining('unavailable') });
    expect(decide(grantingRunView(granting, facts('completed', '.github/workflows/worker.yml')))).toMatchObject({ action: 'keep', next: expect.stringContaining('not of the granting') });
  });
});
