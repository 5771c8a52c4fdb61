/**
 * Indexed binary min-heap of sibling members keyed by (pass, stable order)
 * (spec 7.5: "minimum eligible key by (P[key], stable key ordering)"). Used by
 * the prefix planner for the key level of each priority class: O(1) peek,
 * O(log n) charge of the winner and removal of a member that stops being
 * eligible, and the leading `k` members in order in O(k log k) without
 * disturbing the heap.
 */

export interface HeapMember {
  /** Effective pass compared at this level (after the entry clamp). */
  pass: bigint;
  /** Position in the heap array; -1 when not in a heap. */
  heapIndex: number;
}

export class PassHeap<M extends HeapMember> {
  private readonly items: M[];
  /** Stable order between members with equal passes (members are distinct, so it is total). */
  private readonly order: (a: M, b: M) => number;

  /** Heapify `members` (O(n)); the array is taken over. */
  constructor(members: M[], order: (a: M, b: M) => number) {
    this.items = members;
    this.order = order;
    for (let i = 0; i < members.length; i++) members[i]!.heapIndex = i;
    for (let i = (members.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  get size(): number {
    return this.items.length;
  }

  /** The least member, or undefined when empty. */
  peek(): M | undefined {
    return this.items[0];
  }

  less(a: M, b: M): boolean {
    return a.pass < b.pass || (a.pass === b.pass && this.order(a, b) < 0);
  }

  /** Restore the heap after `member.pass` changed (either direction). */
  update(member: M): void {
    const i = member.heapIndex;
    if (this.items[i] !== member) throw new Error('PassHeap.update: member is not in this heap');
    this.down(this.up(i));
  }

  /** Remove `member` (no-op when it is not in this heap). */
  remove(member: M): void {
    const i = member.heapIndex;
    if (i < 0 || this.items[i] !== member) return;
    const last = this.items.pop()!;
    member.heapIndex = -1;
    if (last === member) return;
    this.items[i] = last;
    last.heapIndex = i;
    this.down(this.up(i));
  }

  /** The `k` least members in ascending order; the heap is not modified. */
  leading(k: number): M[] {
    const out: M[] = [];
    const items = this.items;
    if (items.length === 0 || k <= 0) return out;
    // Best-first walk of the heap tree: a small heap of frontier indexes.
    const frontier: number[] = [0];
    const lessAt = (x: number, y: number): boolean => this.less(items[x]!, items[y]!);
    while (out.length < k && frontier.length > 0) {
      const top = frontier[0]!;
      const last = frontier.pop()!;
      if (frontier.length > 0) {
        frontier[0] = last;
        siftDown(frontier, 0, lessAt);
      }
      out.push(items[top]!);
      const left = 2 * top + 1;
      if (left < items.length) {
        frontier.push(left);
        siftUp(frontier, frontier.length - 1, lessAt);
        if (left + 1 < items.length) {
          frontier.push(left + 1);
          siftUp(frontier, frontier.length - 1, lessAt);
        }
      }
    }
    return out;
  }

  private up(i: number): number {
    const items = this.items;
    const member = items[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent]!;
      if (!this.less(member, p)) break;
      items[i] = p;
      p.heapIndex = i;
      i = parent;
    }
    items[i] = member;
    member.heapIndex = i;
    return i;
  }

  private down(i: number): void {
    const items = this.items;
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
      c.heapIndex = i;
      i = child;
    }
    items[i] = member;
    member.heapIndex = i;
  }
}

function siftUp(a: number[], i: number, less: (x: number, y: number) => boolean): void {
  const v = a[i]!;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!less(v, a[parent]!)) break;
    a[i] = a[parent]!;
    i = parent;
  }
  a[i] = v;
}

function siftDown(a: number[], i: number, less: (x: number, y: number) => boolean): void {
  const n = a.length;
  const v = a[i]!;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= n) break;
    let child = left;
    if (left + 1 < n && less(a[left + 1]!, a[left]!)) child = left + 1;
    if (!less(a[child]!, v)) break;
    a[i] = a[child]!;
    i = child;
  }
  a[i] = v;
}
