/**
 * Checkpoint state is validated like everything else (issue 18 §2): the state of a checkpoint
 * root is parsed with the same closed schemas as the records it summarises, so (digests and
 * fingerprints recomputed, so only the state itself is at fault) an empty Policy, or an unknown
 * member anywhere in a fixed-shape part (policy, limits, profiles, Work positions, Claims,
 * dispatch groups and their profile / sender / run, receipts and their actors, stats, settling
 * operations), is `checkpoint_invalid`; and every view works on every state replay accepts.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { requestFingerprint } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { stateDigest } from './checkpoint.ts';
import { checkpointOf, checkpointShapes, conflictLedger } from '../../tests/support/checkpoints.ts';
import { replayBytes } from '../../tests/support/bytes.ts';
import { exerciseViews } from '../../tests/support/views.ts';

type Root = JsonObject & { actor: JsonValue; request: { kind: string; parameters: JsonObject; fingerprint: string }; operations: Array<JsonObject & { state: JsonObject }> };

function resealed(root: Root): string {
  const op = root.operations[0]!;
  op.state_sha256 = stateDigest(op.state);
  root.request.parameters.state_sha256 = op.state_sha256;
  root.request.fingerprint = requestFingerprint(root.actor, root.request.kind, root.request.parameters);
  return canonicalize(root as JsonValue);
}

function codeOf(ledger: string): string {
  try {
    replayBytes(ledger);
    return 'accepted';
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
}

/** Every object in the state, by path (arrays descended, not themselves objects). */
function objectPaths(v: JsonValue, at: string[], out: string[][]): string[][] {
  if (v !== null && typeof v === 'object') {
    if (!Array.isArray(v)) out.push(at);
    for (const [k, x] of Object.entries(v)) objectPaths(x as JsonValue, [...at, k], out);
  }
  return out;
}

/**
 * Parts whose members are open by the schemas: payloads and descriptors (WireObject; a Work's
 * verified `result` is its descriptor, open at any depth), Work assignment bodies, and maps
 * keyed by input where a new member is itself valid (a fairness key with weight 1 is a valid
 * Policy edit).
 */
const OPEN = [/(^|\.)payload(\.|$)/, /(^|\.)descriptor(\.|$)/, /^works\.[^.]+\.result(\.|$)/, /^policy\.accounting_weights$/, /^dispatches\.[^.]+\.claims\.\d+\.(work|result_refs)/];

function edited(ledger: string, edit: (state: JsonObject) => void): string {
  const [rootLine, ...rest] = ledger.split('\n');
  const root = JSON.parse(rootLine!) as Root;
  edit(root.operations[0]!.state);
  return [resealed(root), ...rest].join('\n');
}

describe('checkpoint state is parsed with the closed schemas of what it summarises', () => {
  const shapes = checkpointShapes();

  it('a checkpoint root whose state.policy is {} (digests recomputed) is checkpoint_invalid', () => {
    for (const shape of shapes) expect({ shape: shape.name, code: codeOf(edited(shape.ledger, (s) => { s.policy = {}; })) }).toEqual({ shape: shape.name, code: 'checkpoint_invalid' });
  });

  it('an unknown member in the checkpoint policy, its limits or a profile is checkpoint_invalid', () => {
    for (const shape of shapes) {
      const pool = (s: JsonObject) => Object.values((s.policy as JsonObject).pools as JsonObject)[0] as JsonObject;
      const edits: Array<[string, (s: JsonObject) => void]> = [
        ['policy', (s) => { (s.policy as JsonObject).extra = 1; }],
        ['policy.limits', (s) => { ((s.policy as JsonObject).limits as JsonObject).extra = 1; }],
        ['policy.pools.*', (s) => { pool(s).extra = 1; }],
        ['policy.pools.*.profiles.*', (s) => { (Object.values(pool(s).profiles as JsonObject)[0] as JsonObject).extra = 1; }],
      ];
      for (const [part, edit] of edits) expect({ shape: shape.name, part, code: codeOf(edited(shape.ledger, edit)) }).toEqual({ shape: shape.name, part, code: 'checkpoint_invalid' });
    }
  });

  it('an unknown member in any fixed-shape part of the state is checkpoint_invalid', () => {
    for (const shape of shapes) {
      const root = JSON.parse(shape.ledger.split('\n')[0]!) as Root;
      const accepted: string[] = [];
      for (const path of objectPaths(root.operations[0]!.state, [], [])) {
        if (OPEN.some((re) => re.test(path.join('.')))) continue;
        const ledger = edited(shape.ledger, (state) => {
          let node = state as JsonObject;
          for (const k of path) node = node[k] as JsonObject;
          node.zz_unknown_member = 1;
        });
        if (codeOf(ledger) !== 'checkpoint_invalid') accepted.push(path.join('.') || '(state)');
      }
      expect({ shape: shape.name, accepted }).toEqual({ shape: shape.name, accepted: [] });
    }
  });

  it('a recorded run binding conflict is restored with its candidates; a conflict naming one run, a terminal run that is no candidate, or a non-decimal run is checkpoint_invalid', () => {
    const ledger = checkpointOf(conflictLedger());
    const p = replayBytes(ledger);
    const group = [...p.state.dispatches.values()][0]!;
    expect(group.conflict).toEqual({ runs: ['7001', '7002'], unnamed: 0, terminal: ['7001'] });
    const tamper = (edit: (c: JsonObject) => void) => edited(ledger, (state) => edit((state.dispatches as Record<string, JsonObject>)[group.dispatchId]!.conflict as JsonObject));
    expect(codeOf(tamper((c) => (c.runs = ['7001'])))).toBe('checkpoint_invalid');
    expect(codeOf(tamper((c) => (c.terminal = ['7999'])))).toBe('checkpoint_invalid');
    expect(codeOf(tamper((c) => (c.runs = ['7001', 'x'])))).toBe('checkpoint_invalid');
    expect(codeOf(tamper((c) => (c.runs = ['7001', '7001'])))).toBe('checkpoint_invalid');
    expect(codeOf(tamper(() => undefined))).toBe('accepted');
  });

  it('every view answers on every checkpoint state replay accepts', () => {
    for (const shape of shapes) {
      const p = replayBytes(shape.ledger);
      expect(() => exerciseViews(p, p.state.commits.at(-1)!.at + 1, 3), shape.name).not.toThrow();
    }
  });
});
