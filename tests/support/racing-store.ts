/**
 * A real ledger store with a racing writer: another publication runs to completion just before
 * one of this store's compare-and-swaps (the CAS races of spec 7.8, e.g. a start marker landing
 * under a prelaunch cancellation).
 */
import type { LedgerStore } from '../../lib/store/types.ts';

/**
 * The same ledger store, but `beforeSwap` runs (to completion) just before its `nth` (1-based,
 * default first) compare-and-swap.
 */
export function racingStore(store: LedgerStore, beforeSwap: () => Promise<void>, nth = 1): LedgerStore {
  let swaps = 0;
  const race = async () => {
    swaps += 1;
    if (swaps === nth) await beforeSwap();
  };
  return new Proxy(store, {
    get(target, key) {
      // Both ways a publication can compare-and-swap (the pieces form is what Git stores take).
      if (key === 'compareAndSwap') {
        return async (...args: Parameters<LedgerStore['compareAndSwap']>) => {
          await race();
          return target.compareAndSwap(...args);
        };
      }
      if (key === 'compareAndSwapParts' && target.compareAndSwapParts !== undefined) {
        return async (...args: Parameters<NonNullable<LedgerStore['compareAndSwapParts']>>) => {
          await race();
          return target.compareAndSwapParts!(...args);
        };
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
