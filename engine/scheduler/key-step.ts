/**
 * The key-level `pick` of one prefix-planner decision (spec 7.5) as replay's grant check
 * uses it: the scalars are computed at the decision, the lists (the eligible `active` set,
 * the entry clamps `entered`, the leading `candidates`) are materialized on first read.
 * Replay reads `entered` and at most one `active` per class and commit, and never the
 * candidates, so a decision costs no object per candidate and no closure
 * (docs/performance.md, "Replay: grant check").
 *
 * The lists are those of the decision, not of the planner when read: the eligible set and
 * the entry clamps come from `leftAt` and the start-of-prefix clamps (members never
 * re-enter within a prefix), and the candidates from a copy of the leading member ids and
 * their passes taken at the decision (a pass moves only when its member is charged).
 */
import type { PassCandidate, SiblingStep } from './clocks.ts';

/** What a step reads of the planner's bucket table (struct of arrays by bucket id). */
export interface KeyStepTable {
  readonly key: readonly string[];
  readonly stride: readonly bigint[];
  readonly startPass: readonly bigint[];
  /** Entering eligibility relative to the class's key clock at the start of the prefix. */
  readonly entering: Uint8Array;
  /** Index of the first decision the bucket is no longer eligible at. */
  readonly leftAt: Int32Array;
}

export class LazyKeyStep implements SiblingStep<string> {
  private activeList: string[] | null = null;
  private enteredList: Array<readonly [string, bigint]> | null = null;
  private candidateList: PassCandidate<string>[] | null = null;

  constructor(
    private readonly table: KeyStepTable,
    /** The class's members when its set was built, in walk order (the `active` order). */
    private readonly members: readonly number[],
    /** Index of this decision in the prefix. */
    private readonly decision: number,
    /** The class was picked by an earlier decision of the prefix (nobody enters then). */
    private readonly picked: boolean,
    /** The leading member ids at the decision, ascending, and their passes then. */
    private readonly lead: readonly number[],
    private readonly leadPass: readonly bigint[],
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
    if (this.candidateList === null) {
      const { key, stride, entering } = this.table;
      const out: PassCandidate<string>[] = [];
      for (let i = 0; i < this.lead.length; i++) {
        const m = this.lead[i]!;
        out.push({ member: key[m]!, pass: this.leadPass[i]!, stride: stride[m]!, entering: !this.picked && entering[m] === 1 });
      }
      this.candidateList = out;
    }
    return this.candidateList;
  }
}
