/**
 * Cross-layer conformance: the replayer verifies every committed dispatch_next
 * of the reference-written ledgers by re-running `pack`; the canonical-prefix
 * fixture's selection and clock views are recomputed at every prefix.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';

import { classV, keyV } from './clocks.ts';
import { planNext } from './plan.ts';
import { referenceSkip } from '../../tests/support/reference.ts';
import { replayBytes } from '../../tests/support/bytes.ts';

const REFERENCE = new URL('../../../shared/reference/', import.meta.url);
const LEDGERS = new URL('gh-aw-generated/', REFERENCE);
const PREFIX = new URL('gh-aw/specs/work-queue/fixtures/canonical-prefix.json', REFERENCE);

const TIPS: Record<string, string> = {
  'ledger-1m.jsonl': 'q_5d976b8aeff34268d07cda831c90808a315b07f346bb46875fd5e51b407a0b73',
  'ledger-16m.jsonl': 'q_796a9b38ddef8312f33ea5a870965858ff40e1dd23816392e7101fcebe9784f2',
};

describe.skipIf(referenceSkip(existsSync(LEDGERS)))('reference ledgers: every committed Claim is the fair prefix', () => {
  it.each(Object.keys(TIPS))('%s replays to the reference tip', (name) => {
    const projection = replayBytes(readFileSync(new URL(name, LEDGERS)));
    expect(projection.state.tip).toBe(TIPS[name]);
  });

  it('a Claim swapped inside a committed prefix is rejected as not fair', () => {
    const lines = readFileSync(new URL('ledger-1m.jsonl', LEDGERS), 'utf8').split('\n');
    const index = lines.findIndex((l) => l.includes('"kind":"dispatch_next"'));
    const commit = JSON.parse(lines[index]!) as { operations: { work_id: string }[] };
    const [first, second] = commit.operations;
    [first!.work_id, second!.work_id] = [second!.work_id, first!.work_id];
    lines[index] = JSON.stringify(commit);
    let code = 'none';
    try {
      replayBytes(lines.join('\n'));
    } catch (e) {
      code = isProtocolError(e) ? e.code : 'other';
    }
    expect(code).toBe('claim_not_fair');
  });
});

interface Prefix {
  tip: string;
  next_node: string;
  reason: string;
  class_v: string;
  key_v: string;
}

describe.skipIf(referenceSkip(existsSync(PREFIX)))('canonical-prefix: next selection and clocks after every causal prefix', () => {
  const fixture = existsSync(PREFIX)
    ? (JSON.parse(readFileSync(PREFIX, 'utf8')) as { canonical: string; commits: { id: string; at: number }[]; prefixes: Prefix[] })
    : { canonical: '', commits: [], prefixes: [] };
  const lines = fixture.canonical.split('\n').filter((l) => l.length > 0);
  it.each(fixture.prefixes.map((p, i) => [p.tip, i, p] as const))('prefix %s', (_tip, i, expected) => {
    const { state } = replayBytes(lines.slice(0, i + 1).join('\n') + '\n');
    const at = fixture.commits[i]!.at;
    const plan = planNext(state, 'default', at);
    expect(plan.selected ? 'selected' : plan.reason).toBe(expected.reason);
    expect(plan.selected ? plan.work.nodeKey : '').toBe(expected.next_node);
    expect(plan.explanation.outcome).toBe(expected.reason);
    expect(classV(state.fairness, 'default')).toBe(expected.class_v);
    expect(keyV(state.fairness, 'default', 3)).toBe(expected.key_v);
  });
});
