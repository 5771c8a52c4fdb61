/**
 * Replay checks a committed dispatch_next with `packGrant` (scheduler/pack.ts): the packer's
 * own code with `PrefixPlanner.decide` instead of `next`, so no explanations or assignments
 * are built. Differential tests against the explained packer `pack` on real ledgers: at the
 * predecessor state of every grant of generated and reference-written ledgers, with the
 * committed request and with varied bounds and decision times, both return the same Claims,
 * clock transitions and stop reason (all of every step but the key level's candidates, which only
 * an explanation reads and replay's key steps do not keep); and mutated grants are rejected
 * with `claim_not_fair` naming the Claim the explained packer expects.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { appendBytes, replayBytes } from '../../tests/support/bytes.ts';
import { describeReference, missingReference, REFERENCE_ROOT } from '../../tests/support/reference.ts';
import { isProtocolError } from '../errors.ts';
import type { ClockTransition, SiblingStep } from '../scheduler/clocks.ts';
import { pack, packGrant, type DispatchNextRequest, type GrantPlan } from '../scheduler/pack.ts';
import type { Projection } from './projection.ts';

interface GrantLine {
  request: { id: string; kind: string; parameters: { pool: string; max_claims: number; max_dispatches: number; max_bytes: number } };
  id: string;
  at: number;
  operations: Array<{ kind: string; [k: string]: unknown }>;
}

function stepForm<K>(step: SiblingStep<K> | null, candidates: boolean): unknown {
  if (step === null) return null;
  return {
    active: [...step.active],
    entered: step.entered.map(([m, p]) => [m, p]),
    selected: step.selected,
    vBefore: step.vBefore,
    v: step.v,
    pass: step.pass,
    stride: step.stride,
    ...(candidates ? { candidates: step.candidates.map((c) => ({ ...c })) } : {}),
  };
}

function transitionForm(t: ClockTransition): unknown {
  return { ...t, classStep: stepForm(t.classStep, true), keyStep: stepForm(t.keyStep, false), eligibleClasses: [...t.eligibleClasses] };
}

function grantForm(plan: GrantPlan): unknown {
  return { claims: JSON.stringify(plan.claims), transitions: plan.transitions.map(transitionForm), stopReason: plan.stopReason };
}

function outcome(run: () => GrantPlan): unknown {
  try {
    return grantForm(run());
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, message: e.message };
  }
}

function requestOf(line: GrantLine, firstClaim: number): DispatchNextRequest {
  const p = line.request.parameters;
  return { requestId: line.request.id, commitId: line.id, pool: p.pool, max_claims: p.max_claims, max_dispatches: p.max_dispatches, max_bytes: p.max_bytes, precedingOperations: firstClaim };
}

/** Varied bounds and decision times for the same predecessor state (deterministic per grant). */
function variants(request: DispatchNextRequest, at: number, n: number): Array<[DispatchNextRequest, number]> {
  const out: Array<[DispatchNextRequest, number]> = [[request, at]];
  const pick = <T>(xs: readonly T[], k: number): T => xs[(n * 7 + k) % xs.length]!;
  for (let k = 0; k < 4; k++) {
    out.push([{
      ...request,
      max_claims: pick([1, 2, 5, 16, 64, 256], k),
      max_dispatches: pick([1, 2, 3, 8, 256], k + 1),
      max_bytes: pick([49152, 8000, 3000, 1200], k + 2),
      precedingOperations: pick([0, 0, 1, 3, 250], k + 3),
    }, at + pick([0, -60_000, 5_000, 3_600_000], k)]);
  }
  return out;
}

/** Walks `ledger` line by line; before each grant, compares packGrant with pack. Returns the grants checked. */
function checkEveryGrant(ledger: string): number {
  const lines = ledger.split('\n').filter((l) => l.length > 0);
  let projection: Projection | null = null;
  let grants = 0;
  lines.forEach((text, n) => {
    const line = JSON.parse(text) as GrantLine;
    if (projection !== null && line.request.kind === 'dispatch_next') {
      const state = projection.state;
      const firstClaim = line.operations.findIndex((op) => op.kind === 'Claim');
      for (const [request, at] of variants(requestOf(line, Math.max(0, firstClaim)), line.at, n)) {
        expect(outcome(() => packGrant(state, request, at))).toEqual(outcome(() => pack(state, request, at)));
      }
      grants += 1;
    }
    projection = projection === null ? replayBytes(`${text}\n`) : appendBytes(projection, `${text}\n`);
  });
  return grants;
}

/** The ledger with the Claims of grant line `n` replaced by `mutate(claims)` (its Observations kept first). */
function mutateGrant(lines: string[], n: number, mutate: (claims: Array<Record<string, unknown>>) => Array<Record<string, unknown>>): string {
  const line = JSON.parse(lines[n]!) as GrantLine;
  const observations = line.operations.filter((op) => op.kind !== 'Claim');
  const claims = line.operations.filter((op) => op.kind === 'Claim');
  const mutated = { ...line, operations: [...observations, ...mutate(claims.map((c) => ({ ...c })))] };
  return [...lines.slice(0, n), JSON.stringify(mutated), ...lines.slice(n + 1)].map((l) => `${l}\n`).join('');
}

describe('replay grant check (packGrant) ≡ the explained packer (pack)', () => {
  // Generated inside the tests: the generator publishes through replay, so a broken grant check fails a named test.
  let generated: string[] | null = null;
  const ledgers = (): string[] => (generated ??= [1, 2, 3].map((seed) => generateLedger(300 * 1024, seed).text));

  it('agrees at every grant of generated ledgers, with the committed request and with varied bounds and decision times', () => {
    let grants = 0;
    for (const ledger of ledgers()) grants += checkEveryGrant(ledger);
    expect(grants).toBeGreaterThan(6);
  });

  it('rejects mutated grants with claim_not_fair naming the Claim the explained packer expects', () => {
    const lines = ledgers()[0]!.split('\n').filter((l) => l.length > 0);
    const grantAt = lines.findIndex((l, i) => i > 0 && (JSON.parse(l) as GrantLine).request.kind === 'dispatch_next' && (JSON.parse(l) as GrantLine).operations.filter((op) => op.kind === 'Claim').length >= 3);
    expect(grantAt).toBeGreaterThan(0);
    const before = replayBytes(lines.slice(0, grantAt).map((l) => `${l}\n`).join(''));
    const line = JSON.parse(lines[grantAt]!) as GrantLine;
    const firstClaim = line.operations.findIndex((op) => op.kind === 'Claim');
    const exact = pack(before.state, requestOf(line, firstClaim), line.at);
    // Unmutated: accepted.
    expect(replayBytes(lines.map((l) => `${l}\n`).join('')).commitCount).toBe(lines.length);
    const mutations: Array<[string, (c: Array<Record<string, unknown>>) => Array<Record<string, unknown>>, number]> = [
      ['swap the first two Claims', (c) => [c[1]!, c[0]!, ...c.slice(2)], 0],
      ['drop the last Claim', (c) => c.slice(0, -1), exact.claims.length - 1],
      ['repeat the last Claim', (c) => [...c, { ...c[c.length - 1]! }], exact.claims.length],
      ['another Work in the second Claim', (c) => [c[0]!, { ...c[1]!, work_id: c[2]!.work_id }, ...c.slice(2)], 1],
      ['another handle in the third Claim', (c) => [...c.slice(0, 2), { ...c[2]!, handle: 'h99' }, ...c.slice(3)], 2],
    ];
    for (const [name, mutate, index] of mutations) {
      let error: unknown = null;
      try {
        replayBytes(mutateGrant(lines, grantAt, mutate));
      } catch (e) {
        error = e;
      }
      expect(isProtocolError(error), name).toBe(true);
      const e = error as { code: string; details?: { expected?: unknown } };
      expect(e.code, name).toBe('claim_not_fair');
      expect(e.details?.expected ?? null, name).toEqual(exact.claims[index] ?? null);
    }
  });
});

const REFERENCE_LEDGER = 'gh-aw-generated/ledger-1m.jsonl';
describeReference(missingReference([REFERENCE_LEDGER]).length === 0, 'replay grant check on the reference-written ledger', () => {
  it('agrees with the explained packer at every grant of ledger-1m.jsonl', () => {
    const grants = checkEveryGrant(readFileSync(new URL(REFERENCE_LEDGER, REFERENCE_ROOT), 'utf8'));
    expect(grants).toBeGreaterThan(0);
  });
});
