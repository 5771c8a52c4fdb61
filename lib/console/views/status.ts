/**
 * A Work's state and readiness at `asOf`, from the one eligibility function
 * (spec 7.15: reads expose both ownership state and readiness, with the
 * concrete blocking clause). No second "approximately why" is computed here.
 */
import { isProtocolError } from '../../../engine/errors.ts';
import type { ReplayState, WorkRecord } from '../../../engine/replay/state.ts';
import { eligibility, type BlockingStep } from '../../../engine/scheduler/eligibility.ts';

import type { Readiness } from './readiness.ts';

export { READINESS, type Readiness } from './readiness.ts';

export interface WorkStatus {
  readiness: Readiness;
  /** `ready`, an eligibility reason code, or a barrier code for completed Work. */
  reason: string;
  blockingPath: BlockingStep[];
}

export function workStatus(state: ReplayState, work: WorkRecord, asOf: number): WorkStatus {
  switch (work.state) {
    case 'claimed':
      return { readiness: 'running', reason: 'ownership_claimed', blockingPath: [] };
    case 'cancelled':
      return { readiness: 'cancelled', reason: 'ownership_cancelled', blockingPath: [] };
    case 'completed':
      if (work.barrier === 'verified') return { readiness: 'done', reason: 'delivery_verified', blockingPath: [] };
      if (work.barrier === 'failed') return { readiness: 'failed', reason: 'delivery_failed', blockingPath: [] };
      return { readiness: 'delivering', reason: 'delivery_pending', blockingPath: [] };
    case 'available':
      break;
  }
  try {
    const verdict = eligibility(state, work, asOf);
    if (verdict.eligible) return { readiness: 'ready', reason: 'ready', blockingPath: [] };
    return { readiness: 'waiting', reason: verdict.reason, blockingPath: verdict.blockingPath };
  } catch (e) {
    if (isProtocolError(e)) return { readiness: 'waiting', reason: e.code, blockingPath: [] };
    throw e;
  }
}

/** Decision time of each commit by ordinal (admission times for ages). */
export function commitTime(state: ReplayState, ordinal: number): number {
  return state.commits[ordinal]?.at ?? 0;
}

/** When a Work was admitted (its admission commit's decision time). */
export function admittedAt(state: ReplayState, work: WorkRecord): number {
  const index = state.commitIndex.get(work.admittedCommit);
  return index === undefined ? work.enqueued : commitTime(state, index);
}
