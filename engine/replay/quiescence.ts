/**
 * Quiescence (spec 7.10): a new Policy epoch needs no nonterminal Work, outstanding
 * reservation or pending delivery barrier. The one rule, listing every blocker: replay
 * refuses a Policy naming the first (`policy_not_quiescent`), the console lists them all.
 */
import type { ReplayState } from '../state/state.ts';

export type QuiescenceKind = 'pending_work' | 'open_claims' | 'native_reservations';

export interface QuiescenceBlocker {
  pool: string;
  what: QuiescenceKind;
  count: number;
  /** `pool P: N <noun>`. */
  text: string;
}

/** What each kind of blocker counts. */
export const QUIESCENCE_NOUNS: Readonly<Record<QuiescenceKind, string>> = {
  pending_work: 'nonterminal or delivery-pending Work',
  open_claims: 'open Claims',
  native_reservations: 'unreleased native reservations',
};

/** Every blocker: nonterminal Work, then open Claims, then native reservations; pools sorted within each. */
export function quiescenceBlockers(state: ReplayState): QuiescenceBlocker[] {
  const out: QuiescenceBlocker[] = [];
  const add = (what: QuiescenceKind, counts: ReadonlyMap<string, number>) => {
    for (const pool of [...counts.keys()].sort()) {
      const count = counts.get(pool)!;
      if (count > 0) out.push({ pool, what, count, text: `pool ${pool}: ${count} ${QUIESCENCE_NOUNS[what]}` });
    }
  };
  add('pending_work', state.pendingByPool);
  add('open_claims', state.outstandingClaims);
  add('native_reservations', state.outstandingNative);
  return out;
}
