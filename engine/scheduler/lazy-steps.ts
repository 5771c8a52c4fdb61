/**
 * The `pick` steps (spec 7.5) of one prefix-planner decision as replay's grant check uses them:
 * the scalars are computed at the decision, the lists (the eligible `active` set, the entry
 * clamps `entered`) are materialized on first read. Replay reads `entered` of every step,
 * `active` of at most one step per clock and commit, and never the candidates, so a decision
 * costs no object per candidate and no closure (docs/performance.md, "Replay: grant check"). The
 * explained path (`next`) builds its candidates eagerly, for its explanation; replay's check and
 * that path are compared step by step in engine/replay/grant-check.test.ts.
 *
 * Key level: the lists are those of the decision, not of the planner when read: the eligible set
 * and the entry clamps come from `leftAt` and the start-of-prefix clamps (members never re-enter
 * within a prefix). A key step keeps no candidates (reading them is a bug: only an explanation
 * reads candidates, and the explained path lists its own). The class level keeps its few.
 *
 * Class level (at most five classes): the pick rule over the planner's private class clock, with
 * each member's clamped pass, stride and entering flag kept in small arrays.
 */
import { classStride, MAX_STEP_CANDIDATES, type PassCandidate, type SiblingStep } from './clocks.ts';
import { numericCompare } from './order.ts';
import type { FairnessState, SiblingClock } from '../state/fairness.ts';

/** What a step reads of the planner's bucket table (struct of arrays by bucket id). */
export interface KeyStepTable {
  readonly key: readonly string[];
  readonly startPass: readonly bigint[];
  /** Entering eligibility relative to the class's key clock at the start of the prefix. */
  readonly entering: Uint8Array;
  /** Index of the first decision the bucket is no longer eligible at. */
  readonly leftAt: Int32Array;
}

export class LazyKeyStep implements SiblingStep<string> {
  private activeList: string[] | null = null;
  private enteredList: Array<readonly [string, bigint]> | null = null;

  constructor(
    private readonly table: KeyStepTable,
    /** The class's members when its set was built, in walk order (the `active` order). */
    private readonly members: readonly number[],
    /** Index of this decision in the prefix. */
    private readonly decision: number,
    /** The class was picked by an earlier decision of the prefix (nobody enters then). */
    private readonly picked: boolean,
    readonly selected: string,
    readonly vBefore: bigint,
    readonly v: bigint,
    readonly pass: bigint,
    readonly stride: bigint,
  ) {}

  get active(): readonly string[] {
    if (this.activeList === null) {
      const { key, leftAt } = this.table;
      const out: string[] = [];
      for (const m of this.members) if (leftAt[m]! > this.decision) out.push(key[m]!);
      this.activeList = out;
    }
    return this.activeList;
  }

  get entered(): ReadonlyArray<readonly [string, bigint]> {
    if (this.enteredList === null) {
      const { key, leftAt, entering, startPass } = this.table;
      const out: Array<readonly [string, bigint]> = [];
      if (!this.picked) for (const m of this.members) if (leftAt[m]! > this.decision && entering[m] === 1) out.push([key[m]!, startPass[m]!]);
      this.enteredList = out;
    }
    return this.enteredList;
  }

  get candidates(): readonly PassCandidate<string>[] {
    throw new Error('LazyKeyStep.candidates: replay\'s grant check keeps no key-level candidates; an explained decision (PrefixPlanner.next) lists them');
  }
}

/** `planSibling` over the class level (members ascending, as the planner lists them), its lists materialized on first read. */
export class LazyClassStep implements SiblingStep<number> {
  private enteredList: Array<readonly [number, bigint]> | null = null;
  private candidateList: PassCandidate<number>[] | null = null;
  readonly selected: number;
  readonly vBefore: bigint;
  readonly v: bigint;
  readonly pass: bigint;
  readonly stride: bigint;
  private readonly passes: bigint[];
  private readonly strides: bigint[];
  private readonly entering: boolean[];

  /** `active`: the classes with an eligible key, ascending and nonempty (the eligible set, kept as it is). */
  constructor(clock: SiblingClock<number> | undefined, readonly active: readonly number[], fairness: FairnessState) {
    const n = active.length;
    const vBefore = clock?.v ?? 0n;
    this.passes = new Array<bigint>(n);
    this.strides = new Array<bigint>(n);
    this.entering = new Array<boolean>(n);
    let top = 0;
    for (let i = 0; i < n; i++) {
      const member = active[i]!;
      const stride = classStride(fairness, member);
      const previous = clock?.pass.get(member) ?? 0n;
      const entering = clock === undefined || !clock.active.has(member);
      let pass = previous;
      if (entering) {
        // Entry/reactivation is the only clamp point: no idle credit.
        const floor = vBefore + stride;
        if (floor > pass) pass = floor;
      }
      this.passes[i] = pass;
      this.strides[i] = stride;
      this.entering[i] = entering;
      // Least (pass, class): members ascend, so the first of equal passes wins.
      if (pass < this.passes[top]!) top = i;
    }
    this.selected = active[top]!;
    this.vBefore = vBefore;
    this.v = this.passes[top]!;
    this.stride = this.strides[top]!;
    this.pass = this.v + this.stride;
  }

  get entered(): ReadonlyArray<readonly [number, bigint]> {
    if (this.enteredList === null) {
      const out: Array<readonly [number, bigint]> = [];
      for (let i = 0; i < this.active.length; i++) if (this.entering[i]) out.push([this.active[i]!, this.passes[i]!]);
      this.enteredList = out;
    }
    return this.enteredList;
  }

  get candidates(): readonly PassCandidate<number>[] {
    if (this.candidateList === null) {
      const out: PassCandidate<number>[] = [];
      for (let i = 0; i < this.active.length; i++) out.push({ member: this.active[i]!, pass: this.passes[i]!, stride: this.strides[i]!, entering: this.entering[i]! });
      out.sort((a, b) => (a.pass < b.pass ? -1 : a.pass > b.pass ? 1 : numericCompare(a.member, b.member)));
      if (out.length > MAX_STEP_CANDIDATES) out.length = MAX_STEP_CANDIDATES;
      this.candidateList = out;
    }
    return this.candidateList;
  }
}
