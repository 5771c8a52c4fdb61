/**
 * Fairness owed over the decisions that actually happened (docs/console.md "Pages", `/fairness`): for
 * each grant in the window, the eligible classes and the eligible keys of the
 * picked class at that decision, re-derived with the engine's `grantPlan` (the
 * packer run on the prefix before the grant, as the grant's receipt does).
 * A class is owed, at each decision where it was eligible, its weight over
 * the weights of the classes eligible then (strict-priority: all of it to the
 * most urgent eligible class); a key is owed, at each decision of its class
 * where it was eligible, its weight over the weights of the keys eligible
 * then. Summed over the window that is the target in grants; the deficit is
 * owed minus received. Nothing is owed to a class or key at decisions where
 * it had no eligible Work.
 */
import { isProtocolError } from '../../../engine/errors.ts';
import { grantPlan } from '../../../engine/receipts/dispatch.ts';
import type { Projection } from '../../../engine/replay/index.ts';
import type { ClaimRecord } from '../../../engine/state/state.ts';
import { ledgerRetaining } from '../../publisher/history.ts';

export interface Decision {
  /** The picked class and key. */
  priority: number;
  key: string;
  /** Classes with eligible Work, and the eligible keys of the picked class, at this decision. */
  classes: number[];
  keys: string[];
  mode: string;
}

/**
 * Decisions by the ledger they were derived from (its root: the genesis or checkpoint commit)
 * and Claim id, derived once per process: the history a root and a grant commit name never
 * changes. A decision is looked up only in a ledger the caller gave that retains the grant's
 * commit, so what a page covers never depends on what this process computed before (e.g. before
 * an in-process compaction).
 */
const DECISIONS = new Map<string, Decision | null>();
const MAX_CACHED = 16_384;

const cacheKey = (ledger: Projection, claimId: string): string => `${ledger.commits[0]?.id ?? ''}\u0000${claimId}`;

function derive(ledger: Projection, requestId: string, claimIds: readonly string[]): void {
  let plan: ReturnType<typeof grantPlan> | null = null;
  try {
    plan = grantPlan(ledger, requestId);
  } catch (e) {
    // A grant whose decision cannot be re-derived from the ledger that retains it is left out of the sums.
    if (!isProtocolError(e)) throw e;
  }
  claimIds.forEach((claimId, i) => {
    const t = plan?.transitions[i];
    const same = plan?.claims[i]?.claim_id === claimId;
    DECISIONS.set(cacheKey(ledger, claimId), t === undefined || !same ? null : {
      priority: t.priority, key: t.fairnessKey, classes: [...t.eligibleClasses], keys: [...t.keyStep.active], mode: t.mode,
    });
  });
  while (DECISIONS.size > MAX_CACHED) DECISIONS.delete(DECISIONS.keys().next().value!);
}

/**
 * The decision behind each of `claims` of the current ledger (the last of `ledgers`), each
 * re-derived from whichever of `ledgers` retains its grant's commit: the current one, or an
 * earlier one a checkpoint replaced (lib/publisher/history.ts `ledgersBackTo`, oldest first).
 * Null: not derivable, e.g. a grant compacted away with no earlier ledger given.
 */
export function grantDecisions(ledgers: readonly Projection[], claims: readonly ClaimRecord[]): Array<Decision | null> {
  const current = ledgers[ledgers.length - 1]!;
  return claims.map((c) => {
    const request = current.request(c.requestId);
    const ledger = request === undefined ? undefined : ledgerRetaining(ledgers, request.commitId);
    if (ledger === undefined) return null;
    const key = cacheKey(ledger, c.claimId);
    if (!DECISIONS.has(key)) derive(ledger, c.requestId, request!.claimIds);
    return DECISIONS.get(key) ?? null;
  });
}

export interface Owed {
  /** Decisions at which the member was eligible. */
  eligibleDecisions: number;
  /** Grants owed over those decisions. */
  owed: number;
}

export interface OwedTally {
  decisions: number;
  classes: Map<number, Owed>;
  /** By `${priority}\u0000${key}`. */
  keys: Map<string, Owed>;
}

function add(map: Map<string, Owed> | Map<number, Owed>, id: string | number, owed: number): void {
  const m = map as Map<string | number, Owed>;
  const o = m.get(id) ?? { eligibleDecisions: 0, owed: 0 };
  o.eligibleDecisions += 1;
  o.owed += owed;
  m.set(id, o);
}

/** Owed grants per class and key over `decisions`, with the installed weights. */
export function owedTally(decisions: ReadonlyArray<Decision | null>, classWeight: (priority: number) => number, keyWeight: (key: string) => number): OwedTally {
  const tally: OwedTally = { decisions: 0, classes: new Map(), keys: new Map() };
  for (const d of decisions) {
    if (d === null) continue;
    tally.decisions += 1;
    const strict = d.mode === 'strict-priority';
    const classTotal = d.classes.reduce((n, c) => n + classWeight(c), 0);
    const least = Math.min(...d.classes);
    for (const c of d.classes) add(tally.classes, c, strict ? (c === least ? 1 : 0) : classWeight(c) / classTotal);
    const keyTotal = d.keys.reduce((n, k) => n + keyWeight(k), 0);
    for (const k of d.keys) add(tally.keys, `${d.priority}\u0000${k}`, keyWeight(k) / keyTotal);
  }
  return tally;
}
