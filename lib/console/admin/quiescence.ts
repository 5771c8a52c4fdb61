/**
 * Why a new Policy epoch cannot be installed yet (spec 7.10: a Policy update
 * needs no nonterminal Work, outstanding reservation or pending delivery
 * barrier). Lists every blocker; replay enforces the same rule on publication.
 */
import type { ReplayState } from '../../../engine/replay/state.ts';

export interface QuiescenceBlocker {
  pool: string;
  what: 'pending_work' | 'open_claims' | 'native_reservations';
  count: number;
  text: string;
}

export function quiescenceBlockers(state: ReplayState): QuiescenceBlocker[] {
  const out: QuiescenceBlocker[] = [];
  for (const [pool, n] of [...state.pendingByPool].sort()) {
    if (n > 0) out.push({ pool, what: 'pending_work', count: n, text: `pool ${pool}: ${n} nonterminal or delivery-pending Work` });
  }
  for (const [pool, n] of [...state.outstandingClaims].sort()) {
    if (n > 0) out.push({ pool, what: 'open_claims', count: n, text: `pool ${pool}: ${n} open Claims` });
  }
  for (const [pool, n] of [...state.outstandingNative].sort()) {
    if (n > 0) out.push({ pool, what: 'native_reservations', count: n, text: `pool ${pool}: ${n} unreleased native reservations` });
  }
  return out;
}
