/**
 * The fairness clock state of spec 7.5 (the scheduler's clocks.ts holds the pass arithmetic:
 * planning a pick and applying an admitted Claim's transition): per pool, one class-level
 * sibling set and one key-level sibling set per priority class, with the epoch's weights,
 * exact bigint tick scales (Q = LCM of the weights and the default weight 1) and strides
 * (Q / weight). Clocks live for one policy epoch (spec 7.10); `createFairnessState` starts
 * them for a Policy.
 */
import { fail } from '../errors.ts';
import { DEFAULT_CLASS_WEIGHTS, DEFAULT_MODE } from '../schema/defaults.ts';

export type SchedulingMode = 'weighted-priority' | 'strict-priority';

/** One sibling competition set: V, P[member], and the active set of the last admitted decision. */
export interface SiblingClock<K> {
  v: bigint;
  pass: Map<K, bigint>;
  active: Set<K>;
}

export interface PoolClocks {
  classes: SiblingClock<number>;
  /** Key-level sibling set of each priority class. */
  keys: Map<number, SiblingClock<string>>;
}

export interface FairnessState {
  /** Policy epoch these clocks belong to (null before the first Policy). */
  epoch: string | null;
  mode: SchedulingMode;
  /** Class weights, index = priority - 1. */
  classWeights: readonly number[];
  classScale: bigint;
  classStrides: readonly bigint[];
  keyWeights: ReadonlyMap<string, number>;
  keyScale: bigint;
  /** Strides of the registered keys; an unregistered key has weight 1 (stride = keyScale). */
  keyStrides: ReadonlyMap<string, bigint>;
  pools: Map<string, PoolClocks>;
}

const MAX_WEIGHT = 1000;

function weight(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_WEIGHT) {
    return fail('policy_invalid', `${what} must be an integer weight in 1..${MAX_WEIGHT}`);
  }
  return value;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** Q = LCM of the weights and the default weight 1 (spec 7.5). */
export function tickScale(weights: Iterable<number>): bigint {
  let q = 1n;
  for (const w of weights) {
    const big = BigInt(w);
    q = (q / gcd(q, big)) * big;
  }
  return q;
}

/**
 * The scheduling economics a Policy sets, as `createFairnessState` reads them: the installed
 * QueuePolicy, or raw JSON (a checkpoint's policy, a what-if proposal), checked here.
 */
export interface FairnessSettings {
  readonly mode?: unknown;
  readonly class_weights?: unknown;
  readonly accounting_weights?: unknown;
}

/**
 * Fresh clocks for a policy epoch: weights from `class_weights` (priorities 1-5)
 * and `accounting_weights` (default key "" keeps weight 1). `policy` is the
 * installed QueuePolicy object; null gives the empty pre-genesis state.
 */
export function createFairnessState(policy: FairnessSettings | null, epoch: string | null = null): FairnessState {
  const modeValue = policy?.mode ?? DEFAULT_MODE;
  if (modeValue !== 'weighted-priority' && modeValue !== 'strict-priority') {
    return fail('policy_invalid', 'mode must be weighted-priority or strict-priority');
  }
  const rawClasses = policy?.class_weights ?? [...DEFAULT_CLASS_WEIGHTS];
  if (!Array.isArray(rawClasses) || rawClasses.length !== 5) return fail('policy_invalid', 'class_weights must list 5 weights');
  const classWeights = rawClasses.map((w, i) => weight(w, `class_weights[${i}]`));
  const rawKeys = policy?.accounting_weights ?? {};
  if (rawKeys === null || typeof rawKeys !== 'object' || Array.isArray(rawKeys)) {
    return fail('policy_invalid', 'accounting_weights must be an object');
  }
  const keyWeights = new Map<string, number>();
  for (const [key, w] of Object.entries(rawKeys)) keyWeights.set(key, weight(w, `accounting_weights[${JSON.stringify(key)}]`));
  const classScale = tickScale(classWeights);
  const keyScale = tickScale(keyWeights.values());
  const keyStrides = new Map<string, bigint>();
  for (const [key, w] of keyWeights) keyStrides.set(key, keyScale / BigInt(w));
  return {
    epoch,
    mode: modeValue,
    classWeights,
    classScale,
    classStrides: classWeights.map((w) => classScale / BigInt(w)),
    keyWeights,
    keyScale,
    keyStrides,
    pools: new Map(),
  };
}
