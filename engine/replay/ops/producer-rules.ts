/**
 * A Policy's producer entitlements (`producers`: principal → pools, priorities, fairness keys)
 * as sets, built once per Policy value. Replay checks every admitted Work and every producer's
 * cancellation against them; the lists can be long (a key per tenant), and scanning them and
 * listing the principals for each Work cost replay of a reference-written 16 MiB ledger about
 * 6% of its time.
 */
import type { ProducerRule, QueuePolicy } from '../../schema/policy.ts';

export interface ProducerEntitlement {
  pools: ReadonlySet<string>;
  priorities: ReadonlySet<number>;
  fairnessKeys: ReadonlySet<string>;
}

/** Each Policy's `producers` → its entitlements by principal, or null when it names none (any producer may submit). */
const BUILT = new WeakMap<object, ReadonlyMap<string, ProducerEntitlement> | null>();

/** The entitlements of `producers` by principal (own members only), or null when there are none. */
export function producerEntitlements(producers: QueuePolicy['producers'] | undefined): ReadonlyMap<string, ProducerEntitlement> | null {
  if (producers === undefined) return null;
  let built = BUILT.get(producers);
  if (built === undefined) {
    const principals = Object.keys(producers);
    built = principals.length === 0 ? null : new Map(principals.map((p) => [p, entitlement(producers[p]!)]));
    BUILT.set(producers, built);
  }
  return built;
}

function entitlement(rule: ProducerRule): ProducerEntitlement {
  return { pools: new Set(rule.pools), priorities: new Set(rule.priorities), fairnessKeys: new Set(rule.fairness_keys) };
}
