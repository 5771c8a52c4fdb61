/**
 * Sibling members ordered by (pass, stable order) — spec 7.5: "minimum
 * eligible key by (P[key], stable key ordering)" — for the prefix planner's
 * key level of each priority class. Members are small integer ids into a
 * caller-owned table (struct of arrays: no object per member).
 *
 * `PassHeap` is an indexed binary min-heap: O(1) peek, O(log n) insert,
 * removal and re-placement. `LeadingSet` keeps the `k` least members as a
 * sorted array (an explanation's candidate list, read for free) in front of a
 * `PassHeap` holding the rest.
 */

export interface MemberTable {
  /** Effective pass of each member id (after the entry clamp). */
  readonly pass: bigint[];
  /** Position of each member id in its heap array; -1 when not in a heap. */
  readonly heapIndex: Int32Array;
  /** Position of each member id in its leading list; -1 when not in it. */
  readonly leadIndex: Int32Array;
  /** Stable order between two distinct member ids (never 0: members are distinct). */
  order(a: number, b: number): number;
}

export class PassHeap {
  private readonly items: number[];

  /** Heapify `members` (O(n)); the array is taken over. */
  constructor(
    private readonly table: MemberTable,
    members: number[],
  ) {
    this.items = members;
    const at = table.heapIndex;
    for (let i = 0; i < members.length; i++) at[members[i]!] = i;
    for (let i = (members.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  get size(): number {
    return this.items.length;
  }

  /** The least member, or -1 when empty. */
  peek(): number {
    return this.items.length === 0 ? -1 : this.items[0]!;
  }

  less(a: number, b: number): boolean {
    const pass = this.table.pass;
    const pa = pass[a]!;
    const pb = pass[b]!;
    return pa < pb || (pa === pb && this.table.order(a, b) < 0);
  }

  /** Add `member` (not already in a heap). */
  push(member: number): void {
    this.items.push(member);
    this.table.heapIndex[member] = this.items.length - 1;
    this.up(this.items.length - 1);
  }

  /** Remove `member` (no-op when it is not in this heap). */
  remove(member: number): void {
    const at = this.table.heapIndex;
    const i = at[member]!;
    if (i < 0 || this.items[i] !== member) return;
    const last = this.items.pop()!;
    at[member] = -1;
    if (last === member) return;
    this.items[i] = last;
    at[last] = i;
    this.down(this.up(i));
  }

  private up(i: number): number {
    const items = this.items;
    const at = this.table.heapIndex;
    const member = items[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent]!;
      if (!this.less(member, p)) break;
      items[i] = p;
      at[p] = i;
      i = parent;
    }
    items[i] = member;
    at[member] = i;
    return i;
  }

  private down(i: number): void {
    const items = this.items;
    const at = this.table.heapIndex;
    const n = items.length;
    const member = items[i]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.less(items[right]!, items[left]!)) child = right;
      const c = items[child]!;
      if (!this.less(c, member)) break;
      items[i] = c;
      at[c] = i;
      i = child;
    }
    items[i] = member;
    at[member] = i;
  }
}

/**
 * A sibling set that keeps its `k` least members as a sorted array and the
 * rest in a `PassHeap`. Invariants: every leading member is less than every
 * heap member, and the leading list is full (`k`) whenever the heap is
 * nonempty. Re-placing the charged winner or removing a member costs O(k)
 * array moves plus O(log n) comparisons.
 */
export class LeadingSet {
  private readonly lead: number[] = [];
  private readonly rest: PassHeap;

  /** O(n + k log n): heapify, then move the `k` least into the sorted list. */
  constructor(
    private readonly table: MemberTable,
    members: number[],
    private readonly k: number,
  ) {
    for (const m of members) table.leadIndex[m] = -1;
    this.rest = new PassHeap(table, members);
    while (this.lead.length < k && this.rest.size > 0) {
      const m = this.rest.peek();
      this.rest.remove(m);
      table.leadIndex[m] = this.lead.length;
      this.lead.push(m);
    }
  }

  get size(): number {
    return this.lead.length + this.rest.size;
  }

  /** The least member, or -1 when empty. */
  peek(): number {
    return this.lead.length === 0 ? -1 : this.lead[0]!;
  }

  /** The (at most `k`) least members in ascending order. Read-only; it changes with the set. */
  leading(): readonly number[] {
    return this.lead;
  }

  /** Remove `member` (no-op when absent). */
  remove(member: number): void {
    const index = this.table.leadIndex[member]!;
    if (index < 0) {
      this.rest.remove(member);
      return;
    }
    this.spliceOut(index);
    this.table.leadIndex[member] = -1;
    const next = this.rest.peek();
    if (next >= 0) {
      this.rest.remove(next);
      this.table.leadIndex[next] = this.lead.length;
      this.lead.push(next);
    }
  }

  /** Re-place `member` after its pass changed. */
  update(member: number): void {
    this.remove(member);
    this.insert(member);
  }

  private insert(member: number): void {
    const lead = this.lead;
    if (lead.length === this.k && !this.rest.less(member, lead[lead.length - 1]!)) {
      this.rest.push(member);
      return;
    }
    // First leading member greater than `member`.
    let lo = 0;
    let hi = lead.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.rest.less(lead[mid]!, member)) lo = mid + 1;
      else hi = mid;
    }
    lead.splice(lo, 0, member);
    const at = this.table.leadIndex;
    for (let i = lo; i < lead.length; i++) at[lead[i]!] = i;
    if (lead.length > this.k) {
      const evicted = lead.pop()!;
      at[evicted] = -1;
      this.rest.push(evicted);
    }
  }

  private spliceOut(index: number): void {
    const lead = this.lead;
    lead.splice(index, 1);
    const at = this.table.leadIndex;
    for (let i = index; i < lead.length; i++) at[lead[i]!] = i;
  }
}
