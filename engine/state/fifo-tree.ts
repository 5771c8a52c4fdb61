/**
 * An ordered set of Work ids keyed by FIFO rank (first committed position,
 * spec 7.3): AVL tree, O(log n) insert/remove, in-order iteration from the
 * head so a scan can skip ineligible heads without removing them.
 */

/** A read-only view of one entry (the tree's own node: no allocation per lookup). */
export interface FifoEntry {
  readonly rank: number;
  readonly id: string;
}

interface Node {
  rank: number;
  id: string;
  height: number;
  left: Node | null;
  right: Node | null;
}

function height(n: Node | null): number {
  return n === null ? 0 : n.height;
}

function update(n: Node): void {
  n.height = 1 + Math.max(height(n.left), height(n.right));
}

function rotateRight(n: Node): Node {
  const l = n.left!;
  n.left = l.right;
  l.right = n;
  update(n);
  update(l);
  return l;
}

function rotateLeft(n: Node): Node {
  const r = n.right!;
  n.right = r.left;
  r.left = n;
  update(n);
  update(r);
  return r;
}

function balance(n: Node): Node {
  update(n);
  const skew = height(n.left) - height(n.right);
  if (skew > 1) {
    if (height(n.left!.left) < height(n.left!.right)) n.left = rotateLeft(n.left!);
    return rotateRight(n);
  }
  if (skew < -1) {
    if (height(n.right!.right) < height(n.right!.left)) n.right = rotateRight(n.right!);
    return rotateLeft(n);
  }
  return n;
}

export class FifoTree {
  private root: Node | null = null;
  private count = 0;
  // The recursions are methods with explicit arguments, not closures over `rank`: replay inserts
  // and removes once per Work state change, and a closure per call was garbage of its own.
  /** Whether the running insert added, or the running remove removed, an entry. */
  private changed = false;
  /** The least node `takeMin` detached. */
  private min: Node | null = null;

  get size(): number {
    return this.count;
  }

  /** Insert `id` at `rank`; a rank already present is replaced. Returns true when added. */
  insert(rank: number, id: string): boolean {
    this.changed = false;
    this.root = this.put(this.root, rank, id);
    if (this.changed) this.count++;
    return this.changed;
  }

  /** Remove the entry at `rank`. Returns true when it existed. */
  remove(rank: number): boolean {
    this.changed = false;
    this.root = this.drop(this.root, rank);
    if (this.changed) this.count--;
    return this.changed;
  }

  private put(n: Node | null, rank: number, id: string): Node {
    if (n === null) {
      this.changed = true;
      return { rank, id, height: 1, left: null, right: null };
    }
    if (rank < n.rank) n.left = this.put(n.left, rank, id);
    else if (rank > n.rank) n.right = this.put(n.right, rank, id);
    else {
      n.id = id;
      return n;
    }
    return balance(n);
  }

  private drop(n: Node | null, rank: number): Node | null {
    if (n === null) return null;
    if (rank < n.rank) n.left = this.drop(n.left, rank);
    else if (rank > n.rank) n.right = this.drop(n.right, rank);
    else {
      this.changed = true;
      if (n.left === null) return n.right;
      if (n.right === null) return n.left;
      const right = this.takeMin(n.right);
      const min = this.min!;
      this.min = null;
      min.left = n.left;
      min.right = right;
      return balance(min);
    }
    return balance(n);
  }

  /** Detaches the least node of `n` into `this.min`; returns what is left of `n`. */
  private takeMin(n: Node): Node | null {
    if (n.left === null) {
      this.min = n;
      return n.right;
    }
    n.left = this.takeMin(n.left);
    return balance(n);
  }

  /** The entry of least rank, or null when empty. O(log n), no allocation. */
  first(): FifoEntry | null {
    let n = this.root;
    if (n === null) return null;
    while (n.left !== null) n = n.left;
    return n;
  }

  /** The entry of least rank greater than `rank`, or null. O(log n), no allocation. */
  after(rank: number): FifoEntry | null {
    let n = this.root;
    let best: Node | null = null;
    while (n !== null) {
      if (n.rank > rank) {
        best = n;
        n = n.left;
      } else n = n.right;
    }
    return best;
  }

  /** Entries in ascending rank. Iteration cost is O(log n + k) for k entries read. */
  *entries(): Generator<[number, string]> {
    const stack: Node[] = [];
    let n = this.root;
    while (n !== null || stack.length > 0) {
      while (n !== null) {
        stack.push(n);
        n = n.left;
      }
      const top = stack.pop()!;
      yield [top.rank, top.id];
      n = top.right;
    }
  }

  /** Height of the tree (tests check the AVL bound). */
  depth(): number {
    return height(this.root);
  }
}
