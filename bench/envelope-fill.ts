/**
 * The generator's envelope mode (bench/generate.ts): the ledger at the watermark plus its full
 * reserve: its watermark and reserve, whether an admission still fits the envelope, and the
 * closing padding of grants_paused control pairs up to the all-writes bound W + Rv.
 */
import { isProtocolError } from '../engine/errors.ts';
import { canonicalize } from '../engine/codec/index.ts';
import type { JsonValue } from '../engine/json.ts';
import { checkEnvelope, checkGrantFits, checkSubmitFits, ledgerBudget } from '../engine/replay/ledger-budget.ts';
import { buildCommit } from '../engine/requests/build.ts';
import { control } from '../engine/requests/lifecycle.ts';
import type { BuiltRequest } from '../engine/requests/operations.ts';
import type { ReplayState } from '../engine/state/state.ts';
import type { Actor } from '../engine/schema/index.ts';

/**
 * The "ledger at the watermark plus its full reserve" mode (issue 11 §5; docs/operating-envelope.md):
 * the Policy carries these small `limits`; the mix admits (submits, grants) while each admission
 * fits the envelope (skipping one the all-writes bound refuses, shedding backlog when nothing else
 * can move) until an admission would cross the watermark W. Then only closure writes follow:
 * every admitted item is closed (cancel_work of the backlog, the lifecycle of every open group to
 * its release), then grants_paused control pairs fill what the all-writes bound still allows, so
 * the ledger ends within one control commit of W + Rv with nothing owed.
 */
export interface EnvelopeFill {
  ledgerBytes: number;
  recoveryBytes: number;
}

export interface EnvelopeFillReport {
  watermark: number;
  recovery: number;
  /** Ledger bytes when the first admission was refused at the watermark. */
  admittedBytes: number;
  /** Owed reserve at that point. */
  reserveAtWatermark: number;
  /** Bytes after closing every admitted item, before padding. */
  closedBytes: number;
  finalBytes: number;
  finalReserve: number;
  admissionsRefusedByReserve: number;
  paddingControls: number;
}

/** Bytes of `built` published on `state`'s tip as request `id`: its canonical line and newline. */
function commitLineBytes(state: ReplayState, id: string, actor: Actor, at: number, built: BuiltRequest): number {
  const commit = buildCommit(state, { id, kind: built.kind, parameters: built.parameters, actor, at, operations: built.operations });
  return Buffer.byteLength(canonicalize(commit as unknown as JsonValue)) + 1;
}

/**
 * Whether an admission `built` at `at` fits the envelope: a submit (`claims` 0, its Work in
 * `pool`) or a grant of `claims` Claims in `groups` groups. A refused one either crosses the
 * watermark (the ledger's bytes and owed reserve at that point) or only the all-writes bound.
 */
export function admission(
  state: ReplayState, fill: EnvelopeFill, pool: string,
  request: { id: string; actor: Actor; at: number; built: BuiltRequest; claims: number; groups: number },
): 'fits' | 'reserve' | { admittedBytes: number; reserveAtWatermark: number } {
  const { id, actor, at, built, claims, groups } = request;
  const commitBytes = commitLineBytes(state, id, actor, at, built);
  try {
    if (claims === 0) checkSubmitFits(state, commitBytes, built.operations.filter((op) => op.kind === 'Work').map(() => pool));
    else checkGrantFits(state, commitBytes, claims, Array.from({ length: groups }, () => pool));
    return 'fits';
  } catch (e) {
    if (!isProtocolError(e) || e.code !== 'ledger_limit') throw e;
    const budget = ledgerBudget(state);
    if (budget.bytes + commitBytes > fill.ledgerBytes) return { admittedBytes: budget.bytes, reserveAtWatermark: budget.reserve };
    return 'reserve';
  }
}

/**
 * Fills the rest of the reserve with closure writes only: grants_paused control pairs, as long
 * as a whole pair stays within the all-writes bound (no admission, nothing owed). `next` is the
 * id and a latest time of the next request; `publishPair` publishes one pause/resume pair.
 */
export function padReserve(
  state: ReplayState, fill: EnvelopeFill, admin: Actor,
  next: () => { id: string; at: number }, publishPair: () => void,
): Pick<EnvelopeFillReport, 'closedBytes' | 'finalBytes' | 'finalReserve' | 'paddingControls'> {
  const closedBytes = ledgerBudget(state).bytes;
  let controls = 0;
  for (;;) {
    // The resume commit is the longer of the pair (its reason is); the clock may add digits: + 64.
    const built = control('grants_paused', false, 'maintenance_window_end');
    const { id, at } = next();
    const pairBytes = 2 * commitLineBytes(state, id, admin, at, built) + 64;
    const budget = ledgerBudget(state);
    try {
      checkEnvelope({ ledger_bytes: fill.ledgerBytes, recovery_bytes: fill.recoveryBytes }, { before: budget.bytes, bytes: budget.bytes + pairBytes, reserve: budget.reserve, admits: false, optional: false });
    } catch (e) {
      if (isProtocolError(e) && e.code === 'ledger_limit') break;
      throw e;
    }
    publishPair();
    controls += 2;
  }
  const budget = ledgerBudget(state);
  return { closedBytes, finalBytes: budget.bytes, finalReserve: budget.reserve, paddingControls: controls };
}
