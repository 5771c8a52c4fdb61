/**
 * What the generated mix submits (bench/generate.ts): the seeded draws (mulberry32) and the
 * graphs of 1-20 nodes a submit carries, some with Work edges, across 5 priorities and the 50
 * tenants of the weighted Policy, with gh-aw-like payloads (instructions, issue, labels, task).
 * Every value comes from the draws, in a fixed order: the same seed gives the same graphs.
 */
import type { SubmitNode } from '../engine/requests/operations.ts';

export const REPOSITORY = 'owner/repo';
export const TENANTS = Array.from({ length: 50 }, (_, i) => `tenant-${String(i).padStart(2, '0')}`);

const WORDS = [
  'bump', 'fix', 'update', 'failure', 'notes', 'dependency', 'refactor', 'summarize', 'review', 'label', 'security', 'flaky',
  'docs', 'triage', 'changelog', 'module', 'investigate', 'release', 'advisory', 'backport', 'migrate', 'upgrade', 'lint', 'test',
];
const LABELS = ['bug', 'p0', 'p1', 'p2', 'docs', 'security', 'flaky', 'deps', 'enhancement', 'good-first-issue'];
const TASKS = ['fix', 'deps', 'docs', 'triage', 'refactor', 'review', 'release'];

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One seeded stream of draws: a float in [0, 1), an integer in [lo, hi], an element. */
export interface Draws {
  rnd: () => number;
  int: (lo: number, hi: number) => number;
  pick: <T>(xs: readonly T[]) => T;
}

export function draws(seed: number): Draws {
  const rnd = prng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  return { rnd, int, pick };
}

function instructions({ int, pick }: Draws): string {
  const target = int(250, 330);
  const words: string[] = [];
  let len = 0;
  while (len < target) {
    const word = pick(WORDS);
    words.push(word);
    len += word.length + 1;
  }
  return words.join(' ');
}

/** The nodes of one submitted graph. */
export function graphNodes(d: Draws): SubmitNode[] {
  const { rnd, int, pick } = d;
  const n = int(1, 20);
  const nodes: SubmitNode[] = [];
  for (let i = 0; i < n; i++) {
    const depends: SubmitNode['depends_on'] = [];
    if (i > 0 && rnd() < 0.3) {
      const parents = new Set<number>();
      const count = rnd() < 0.8 ? 1 : 2;
      for (let k = 0; k < count; k++) parents.add(int(0, i - 1));
      for (const p of parents) depends.push({ kind: 'work', node_key: `n-${p}` });
    }
    const labels = new Set<string>();
    const labelCount = int(1, 3);
    while (labels.size < labelCount) labels.add(pick(LABELS));
    nodes.push({
      node_key: `n-${i}`,
      priority: int(1, 5),
      fairness_key: pick(TENANTS),
      depends_on: depends,
      payload: {
        attempt_budget: int(1, 3),
        instructions: instructions(d),
        issue: String(int(1000, 99999)),
        labels: [...labels],
        ordinal: i,
        repository: REPOSITORY,
        task: pick(TASKS),
      },
    });
  }
  return nodes;
}
