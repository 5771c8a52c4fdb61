/**
 * A Work's readiness at `asOf`, beside the one eligibility function it reads (spec 7.15:
 * reads expose both ownership state and readiness, with the concrete blocking clause).
 * The console, the CLI views and the MCP views all answer from this; none computes a
 * second "approximately why".
 */
import { isProtocolError } from '../errors.ts';
import { stateOf, type QueueSource } from '../state/source.ts';
import type { WorkRecord } from '../state/state.ts';
import { eligibility, type BlockingStep } from './eligibility.ts';
import type { Readiness } from './readiness-values.ts';

export { READINESS, type Readiness } from './readiness-values.ts';

export interface WorkReadiness {
  readiness: Readiness;
  /**
   * `ready`; for available Work the eligibility reason code; for claimed Work
   * `ownership_claimed`, cancelled `ownership_cancelled`; for completed Work its barrier code.
   */
  reason: string;
  /** The blocking path of waiting Work (empty otherwise). */
  blockingPath: BlockingStep[];
}

export function workReadiness(source: QueueSource, work: WorkRecord, asOf: number): WorkReadiness {
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
    const verdict = eligibility(stateOf(source), work, asOf);
    if (verdict.eligible) return { readiness: 'ready', reason: 'ready', blockingPath: [] };
    return { readiness: 'waiting', reason: verdict.reason, blockingPath: verdict.blockingPath };
  } catch (e) {
    // An available Work whose pool the Policy no longer configures cannot be judged: it waits, coded.
    if (isProtocolError(e)) return { readiness: 'waiting', reason: e.code, blockingPath: [] };
    throw e;
  }
}
