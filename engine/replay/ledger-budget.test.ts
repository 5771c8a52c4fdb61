/**
 * The operating envelope on the byte path (spec 7.17, issue 11): the admission watermark
 * (`limits.ledger_bytes`), the recovery reserve (`limits.recovery_bytes`, contract
 * `recovery_reservation.reserve_formula`) and the hard ceilings. Ledgers are built by the
 * engine's own writer under a Policy whose limits have the same digit count as the value under
 * test, then the genesis Policy's limit is rewritten (a bootstrap submit's parameters bind only
 * its Work, so no fingerprint changes): every record keeps its length and only the rule fails.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { requestFingerprint } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { cancelWorkRequest, policyRequest } from '../requests/admin.ts';
import { buildCommit } from '../requests/build.ts';
import { bootstrapRequest, submitRequest } from '../requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../requests/writer.ts';
import type { Actor } from '../schema/index.ts';
import { replayLedger } from './index.ts';
import { checkSubmitFits, dispatchReserve, LIMIT_CEILINGS, ledgerBudget, workReserve } from './ledger-budget.ts';

const REPO = 'acme/queue';
const producer: Actor = { role: 'producer', principal: '1001', repository: REPO };
const admin: Actor = { role: 'administrator', principal: '1001', repository: REPO };
const encoder = new TextEncoder();
const bytes = (text: string): Uint8Array => encoder.encode(text);
const PAYLOAD = 'x'.repeat(2000);

function codeOf(input: Uint8Array): string {
  try {
    replayLedger(input);
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
  return 'accepted';
}

function policy(limits: Partial<Record<string, number>> = {}): JsonObject {
  const p = defaultPolicy({ repository: REPO, principal: '1001' });
  Object.assign(p.limits as JsonObject, limits);
  p.producers = { '1001': { pools: ['default'], priorities: [1, 2, 3, 4, 5], fairness_keys: [''] } };
  return p;
}

/** A bootstrap plus `n` one-Work submits, each carrying a 2,000-byte payload. */
function submits(limits: Partial<Record<string, number>>, n: number): LedgerWriter {
  const w = new LedgerWriter();
  w.publish('seed', producer, 1, bootstrapRequest(policy(limits), 'e1', [{ node_key: 'k0', payload: { p: PAYLOAD } }], { graphId: 'g', at: 1 }));
  for (let i = 1; i <= n; i++) w.publish(`s${i}`, producer, 1 + i, submitRequest(w.state, [{ node_key: `k${i}`, payload: { p: PAYLOAD } }], { graphId: 'g', at: 1 + i }));
  return w;
}

/** The ledger with the genesis Policy's `limits[field]` replaced (same digit count keeps every length). */
function withLimit(text: string, field: string, value: number): Uint8Array {
  const lines = text.split('\n');
  const genesis = JSON.parse(lines[0]!) as JsonObject & { operations: JsonObject[] };
  const limits = (genesis.operations[0]!.policy as JsonObject).limits as JsonObject;
  expect(String(limits[field]).length, 'the placeholder keeps the record length').toBe(String(value).length);
  limits[field] = value;
  lines[0] = canonicalize(genesis as unknown as JsonValue);
  return bytes(lines.join('\n'));
}

describe('admission watermark (limits.ledger_bytes, spec 7.17)', () => {
  // 40 submits of ~4.5 KB: the ledger is six digits long, like the 999999 placeholder.
  const w = submits({ ledger_bytes: 999999 }, 40);
  const text = w.text();
  const size = encoder.encode(text).length;

  it('counts the canonical ledger bytes (line + LF) on replay', () => {
    expect(size).toBeGreaterThan(100000);
    expect(ledgerBudget(replayLedger(bytes(text)).state).bytes).toBe(size);
    expect(ledgerBudget(replayLedger(text).state).bytes, 'the string path agrees').toBe(size);
  });

  it('accepts a submit that ends exactly at the watermark and one byte under it', () => {
    expect(codeOf(withLimit(text, 'ledger_bytes', size))).toBe('accepted');
    expect(codeOf(withLimit(text, 'ledger_bytes', size + 1))).toBe('accepted');
  });

  it('rejects a submit that takes the ledger one byte past the watermark (ledger_limit)', () => {
    try {
      replayLedger(withLimit(text, 'ledger_bytes', size - 1));
      expect.unreachable('replay accepted a ledger past its watermark');
    } catch (e) {
      if (!isProtocolError(e)) throw e;
      expect(e.code).toBe('ledger_limit');
      expect(e.details).toMatchObject({ limit: 'ledger_bytes', ledger_bytes: size, watermark: size - 1 });
      expect(e.line).toBe(41);
    }
  });

  it('a closure (cancel_work) past the watermark still fits in the reserve; a new submit after it is ledger_limit', () => {
    const closing = submits({ ledger_bytes: 999999 }, 40);
    closing.publish('x1', admin, 100, cancelWorkRequest(closing.state, [closing.state.works.keys().next().value!], 'operator_cancelled'));
    const closed = closing.text();
    expect(codeOf(withLimit(closed, 'ledger_bytes', size)), 'cancel_work uses the reserve past the watermark').toBe('accepted');
    const more = buildCommit(closing.state, { id: 's99', actor: producer, at: 101, ...submitRequest(closing.state, [{ node_key: 'late', payload: { p: 1 } }], { graphId: 'g', at: 101 }) });
    const after = `${closed}${canonicalize(more as unknown as JsonValue)}\n`;
    expect(codeOf(withLimit(after, 'ledger_bytes', size))).toBe('ledger_limit');
    expect(codeOf(withLimit(after, 'ledger_bytes', 999999)), 'the same submit under a larger watermark is fine').toBe('accepted');
  });
});

describe('recovery reserve (contract reserve_formula)', () => {
  it('an available Work owes retry·(4E+8192) + 2R + 2E + 8192 = 55296 bytes with the defaults', () => {
    const w = submits({}, 1);
    const work = [...w.state.works.values()][0]!;
    expect(workReserve(w.state, work)).toBe(3 * (4 * 1024 + 8192) + 2 * 4096 + 2 * 1024 + 8192);
    expect(ledgerBudget(w.state).reserve).toBe(2 * 55296);
  });

  it('an unreleased dispatch owes (reconciliation.max_attempts + 4 − lifecycle_writes)·(2E+12288) + 2E + 8192', () => {
    const w = submits({}, 0);
    const group = { released: false, pool: 'default', lifecycleWrites: 0 } as never;
    expect(dispatchReserve(w.state, group)).toBe(9 * (2048 + 12288) + 2048 + 8192);
    expect(dispatchReserve(w.state, { released: true, pool: 'default', lifecycleWrites: 0 } as never)).toBe(0);
  });

  // Two admitted Works owe 110592 bytes. Every write must keep ledger + owed reserve within
  // ledger_bytes + recovery_bytes: exactly equal (and one byte of slack) admits the second Work,
  // one byte short rejects it.
  const text = submits({ ledger_bytes: 999999, recovery_bytes: 99999 }, 1).text();
  const size = encoder.encode(text).length;
  const fit = (slack: number): string => {
    const limited = new TextDecoder().decode(withLimit(text, 'ledger_bytes', 100000));
    return codeOf(withLimit(limited, 'recovery_bytes', size + 110592 - 100000 + slack));
  };
  it('admits Work when ledger bytes + owed reserve equal ledger_bytes + recovery_bytes exactly, or one byte under', () => {
    expect(size + 110592 - 100000).toBeGreaterThan(9999);
    expect(fit(0)).toBe('accepted');
    expect(fit(1)).toBe('accepted');
  });

  it('rejects the admission whose owed reserve is one byte over the all-writes bound (ledger_limit)', () => {
    expect(fit(-1)).toBe('ledger_limit');
  });
});

describe('hard ceilings: a Policy may lower a limit, never raise it (spec 7.17)', () => {
  /** A policy genesis whose `limits[field]` is `value`, re-sealed (built at the ceiling, then edited). */
  function policyGenesis(field: string, value: number): Uint8Array {
    const w = new LedgerWriter();
    const commit = buildCommit(w.state, { id: 'p1', actor: admin, at: 1, ...policyRequest('e1', policy()) }) as unknown as JsonObject & { request: JsonObject; operations: JsonObject[] };
    const params = commit.request.parameters as { operations: JsonObject[] };
    for (const op of [commit.operations[0]!, params.operations[0]!]) ((op.policy as JsonObject).limits as JsonObject)[field] = value;
    commit.request.fingerprint = requestFingerprint(commit.actor as JsonObject, 'policy', commit.request.parameters as JsonValue);
    return bytes(`${canonicalize(commit as unknown as JsonValue)}\n`);
  }

  // graph_nodes, pending_nodes and observation_writes are count bounds (≤ 4096) of the wire
  // schema itself, so raising them fails schema validation before the Policy rule is reached.
  const SCHEMA_BOUNDED = new Set(['graph_nodes', 'pending_nodes', 'observation_writes']);
  for (const [field, ceiling] of Object.entries(LIMIT_CEILINGS)) {
    const expected = SCHEMA_BOUNDED.has(field) ? 'schema_invalid' : 'policy_invalid';
    it(`rejects a Policy raising limits.${field} one above its ceiling ${ceiling} (${expected})`, () => {
      expect(codeOf(policyGenesis(field, ceiling)), 'at the ceiling').toBe('accepted');
      try {
        replayLedger(policyGenesis(field, ceiling + 1));
        expect.unreachable('a Policy above the ceiling was accepted');
      } catch (e) {
        if (!isProtocolError(e)) throw e;
        expect(e.code).toBe(expected);
        expect(e.message).toContain(field);
        if (expected === 'policy_invalid') expect(e.message).toContain(String(ceiling));
      }
    });
  }

  it('accepts a Policy at every ceiling exactly and one with every limit lowered', () => {
    for (const limits of [{}, { ledger_bytes: 1000000, recovery_bytes: 500000, payload_bytes: 1024, operations: 16 }]) {
      const w = new LedgerWriter();
      const commit = buildCommit(w.state, { id: 'p1', actor: admin, at: 1, ...policyRequest('e1', policy(limits)) });
      expect(codeOf(bytes(`${canonicalize(commit as unknown as JsonValue)}\n`))).toBe('accepted');
    }
  });
});

describe('checkSubmitFits (the staging precheck) agrees with replay at the watermark', () => {
  const w = submits({ ledger_bytes: 999999 }, 40);
  const before = ledgerBudget(w.state).bytes;
  const commit = buildCommit(w.state, { id: 'next', actor: producer, at: 500, ...submitRequest(w.state, [{ node_key: 'next', payload: { p: PAYLOAD } }], { graphId: 'g', at: 500 }) });
  const line = `${canonicalize(commit as unknown as JsonValue)}\n`;
  const size = before + encoder.encode(line).length;
  const text = `${w.text()}${line}`;
  const precheck = (watermark: number): string => {
    const limits = w.state.policy!.policy.limits as JsonObject;
    const saved = limits.ledger_bytes;
    limits.ledger_bytes = watermark;
    try {
      checkSubmitFits(w.state, size - before, ['default']);
      return 'accepted';
    } catch (e) {
      if (isProtocolError(e)) return e.code;
      throw e;
    } finally {
      limits.ledger_bytes = saved!;
    }
  };

  for (const [label, watermark] of [['one byte under', size + 1], ['exact', size], ['one byte over', size - 1]] as const) {
    it(`${label}: the precheck and replay give the same verdict`, () => {
      const replayed = codeOf(withLimit(text, 'ledger_bytes', watermark));
      expect(precheck(watermark)).toBe(replayed);
      expect(replayed).toBe(watermark >= size ? 'accepted' : 'ledger_limit');
    });
  }
});
