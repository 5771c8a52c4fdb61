/**
 * The key level of one priority class in a prefix (spec 7.5): its lane (the
 * key-level sibling set, built on the class's first use with entering flags
 * and entry clamps against the class's key clock) and the key-level pick of a
 * decision, read from the lane's `LeadingSet`. prefix-planner.ts owns the
 * lanes and moves them as Claims are admitted.
 */
import type { FairnessState, SiblingClock } from '../state/fairness.ts';
import { keyStride, MAX_STEP_CANDIDATES, type PassCandidate, type SiblingStep } from './clocks.ts';
import type { BucketTable } from './bucket-table.ts';
import { LazyKeyStep } from './lazy-steps.ts';
import { LeadingSet } from './pass-heap.ts';
import type { CandidateView } from './plan-types.ts';

const SURROGATE = /[\ud800-\udfff]/;

/** Key-level sibling set of one priority class. */
export interface Lane {
  priority: number;
  /** The class's key clock at the start of the prefix. */
  clock: SiblingClock<string> | undefined;
  /** V of the class's key clock (moves with each admitted pick in this class). */
  v: bigint;
  /** Picked by an admitted decision of this prefix (its clock's active set is then a superset of the eligible set). */
  picked: boolean;
  /** Buckets of this class that were eligible when the pool was indexed, in walk order. */
  buckets: number[];
  /** Buckets still eligible. */
  count: number;
  /** Members when the set was built (first use), in walk order: the `active` order. */
  members: number[] | null;
  set: LeadingSet | null;
}

/** The key-level pick of `lane` (spec 7.5 `pick`), its explained candidates, and the winner's bucket. */
export function pickKey(table: BucketTable, lane: Lane, decision: number, fairness: FairnessState, explain: boolean): [SiblingStep<string>, CandidateView[] | null, number] {
  const set = lane.set ?? build(table, lane, fairness);
  const leading = set.leading();
  const top = leading[0]!;
  const picked = lane.picked;
  const members = lane.members!;
  const { key, pass, stride, entering, passText, strideText } = table;
  if (!explain) {
    // Replay's grant check: the same decision, its lists materialized on first read and no
    // candidates, which only an explanation reads (lazy-steps.ts).
    const step = new LazyKeyStep(table, members, decision, picked, key[top]!, lane.v, pass[top]!, pass[top]! + stride[top]!, stride[top]!);
    return [step, null, top];
  }
  const candidates: PassCandidate<string>[] = [];
  const views: CandidateView[] = [];
  for (const m of leading) {
    const isEntering = !picked && entering[m] === 1;
    candidates.push({ member: key[m]!, pass: pass[m]!, stride: stride[m]!, entering: isEntering });
    views.push({
      member: key[m]!,
      pass: (passText[m] ??= pass[m]!.toString()),
      stride: (strideText[m] ??= stride[m]!.toString()),
      entering: isEntering,
    });
  }
  // The eligible set and entry clamps of this decision, materialized only when applied (as above).
  const lists = new LazyKeyStep(table, members, decision, picked, key[top]!, lane.v, pass[top]!, pass[top]! + stride[top]!, stride[top]!);
  const step: SiblingStep<string> = {
    get active(): readonly string[] {
      return lists.active;
    },
    get entered(): ReadonlyArray<readonly [string, bigint]> {
      return lists.entered;
    },
    selected: key[top]!,
    vBefore: lane.v,
    v: pass[top]!,
    pass: pass[top]! + stride[top]!,
    stride: stride[top]!,
    candidates,
  };
  return [step, views, top];
}

/**
 * The class's key-level competition set on first use: entering flags and
 * entry clamps against its clock (untouched until the class is picked).
 */
function build(table: BucketTable, lane: Lane, fairness: FairnessState): LeadingSet {
  const clock = lane.clock;
  const members: number[] = [];
  for (const b of lane.buckets) {
    if (table.eligible[b] === 0) continue;
    const key = table.key[b]!;
    const stride = keyStride(fairness, key);
    const previous = clock?.pass.get(key) ?? 0n;
    const entering = clock === undefined || !clock.active.has(key);
    let pass = previous;
    if (entering) {
      const floor = lane.v + stride;
      if (floor > pass) pass = floor;
    }
    table.stride[b] = stride;
    table.entering[b] = entering ? 1 : 0;
    table.plain[b] = SURROGATE.test(key) ? 0 : 1;
    table.startPass[b] = pass;
    table.pass[b] = pass;
    members.push(b);
  }
  lane.members = members;
  lane.set = new LeadingSet(table, members.slice(), MAX_STEP_CANDIDATES);
  return lane.set;
}
