/**
 * `Projection.fork()` (fork.ts): appending to a fork is exactly appending to the projection
 * itself, and the projection forked from is never changed. Checked commit by commit on a busy
 * Fairway-written ledger (every request kind the writers make, the whole lifecycle, a
 * checkpoint root), on the reference-written ledger-1m, and on fuzzed ledgers whose appended
 * part is rejected: same verdict and code, same resulting state (deep, through every Map, Set,
 * array and FIFO tree in iteration order), base state unchanged. Every field of the replay
 * state (fork-fields.ts) is written through a fork, and a fork that admits Work with a backing
 * Issue and links an Issue leaves its projection's indexes as they were.
 */
import { readFileSync, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { frameLedger } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import { bootstrapRequest, operationsRequest, submitRequest } from '../requests/operations.ts';
import { commitOn } from '../requests/build.ts';
import { defaultPolicy, LedgerWriter } from '../requests/writer.ts';
import { parseQueueCommit, type Actor } from '../schema/index.ts';
import { buildCheckpointCommit } from './checkpoint.ts';
import { forkState } from './fork.ts';
import { appendLedger, replayLedger, type Projection } from './index.ts';
import { REPOSITORY, step, T0 } from '../../tests/support/checkpoint-ledgers.ts';
import { variants } from '../../tests/fuzz/fuzzer.ts';
import { referenceSkip } from '../../tests/support/reference.ts';
import { replayBytes } from '../../tests/support/bytes.ts';
import { backingIssuesLedger, checkpointOf, CREATED_ISSUE, GRANTED_ISSUE } from '../../tests/support/checkpoints.ts';
import { policyWith, projectorActor, rule, RULE_REF } from '../../tests/issues/rules.ts';
import { producer as queueProducer, reconciler, TestQueue } from '../../tests/acceptance/queue.ts';
import { completedClaim } from '../../tests/conformance/forbidden.ts';
import { release, result } from '../requests/lifecycle.ts';
import { FORKED_FIELDS } from './fork-fields.ts';

const encoder = new TextEncoder();
const LEDGER_1M = new URL('../../../shared/reference/gh-aw-generated/ledger-1m.jsonl', import.meta.url);

/** Structural difference between two values (null: equal), following Map/Set/array order and class identity. */
function difference(a: unknown, b: unknown, path = '$', seen = new Map<unknown, unknown>()): string | null {
  if (Object.is(a, b)) return null;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return `${path}: ${String(a)} ≠ ${String(b)}`;
  if (seen.get(a) === b) return null;
  seen.set(a, b);
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: different kinds of object`;
  if (a instanceof Map || a instanceof Set) {
    const ea = [...(a as Map<unknown, unknown>).entries()];
    const eb = [...(b as Map<unknown, unknown>).entries()];
    if (ea.length !== eb.length || (a as Map<unknown, unknown>).size !== ea.length || (b as Map<unknown, unknown>).size !== eb.length) return `${path}: size ${ea.length} ≠ ${eb.length}`;
    for (let i = 0; i < ea.length; i++) {
      const d = difference(ea[i]![0], eb[i]![0], `${path}.key[${i}]`, seen) ?? difference(ea[i]![1], eb[i]![1], `${path}<${String(ea[i]![0])}>`, seen);
      if (d !== null) return d;
    }
    return null;
  }
  const ka = Reflect.ownKeys(a);
  const kb = Reflect.ownKeys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return `${path}: keys ${ka.map(String).join(',')} ≠ ${kb.map(String).join(',')}`;
  for (const k of ka) {
    const d = difference((a as Record<PropertyKey, unknown>)[k], (b as Record<PropertyKey, unknown>)[k], `${path}.${String(k)}`, seen);
    if (d !== null) return d;
  }
  return null;
}

type Verdict = { ok: true } | { ok: false; code: string };

function verdictOf(f: () => void): Verdict {
  try {
    f();
    return { ok: true };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { ok: false, code: e.code };
  }
}

/**
 * Appends `tail` to a fork of `base` and to `twin` (an independent projection equal to `base`):
 * same verdict, same state, and `base` still equal to what it was (`before`).
 */
function checkFork(base: Projection, twin: Projection, before: Projection, tail: Uint8Array, where: string, deep = true): Verdict {
  const fork = base.fork();
  const forked = verdictOf(() => appendLedger(fork, tail));
  const native = verdictOf(() => appendLedger(twin, tail));
  expect(forked, where).toEqual(native);
  if (native.ok) {
    if (deep) expect(difference(fork.state, twin.state), where).toBeNull();
    expect(fork.tip, where).toBe(twin.tip);
    expect(fork.validatedLength, where).toBe(twin.validatedLength);
  }
  expect(base.valid, where).toBe(true);
  if (deep) expect(difference(base.state, before.state), `${where}: the forked projection changed`).toBeNull();
  return native;
}

/**
 * Walks a ledger commit by commit: each line is appended to a fork first, then to the projection.
 * Every verdict is compared; the states deeply for the first `dense` commits, then every `every`th.
 */
function walk(bytes: Uint8Array, label: string, dense = 120, every = 7): number {
  const frames = frameLedger(bytes);
  const line = (i: number) => bytes.subarray(frames[i]!.start, frames[i]!.end + 1);
  const base = replayLedger(line(0));
  const twin = replayLedger(line(0));
  const before = replayLedger(line(0));
  for (let i = 1; i < frames.length; i++) {
    const v = checkFork(base, twin, before, line(i), `${label} line ${i + 1}`, i < dense || i % every === 0 || i === frames.length - 1);
    expect(v, `${label} line ${i + 1}`).toEqual({ ok: true });
    appendLedger(base, line(i));
    appendLedger(before, line(i));
  }
  return frames.length;
}

const admin: Actor = { role: 'administrator', principal: '1001', repository: REPOSITORY };
const producer: Actor = { ...admin, role: 'producer' };

function busyLedger(steps: number): LedgerWriter {
  const w = new LedgerWriter();
  const policy = defaultPolicy({ repository: REPOSITORY, principal: '1001', weights: { alpha: 1, beta: 2, gamma: 3 }, logicalLimit: 8, nativeLimit: 4, maxClaims: 2 });
  w.publish('bootstrap', producer, T0 - 1000, bootstrapRequest(policy, 'epoch-1', [{ node_key: 'seed', payload: { seed: true } }], { graphId: 'seed', at: T0 - 1000 }));
  for (let i = 0; i < steps; i++) step(w, i);
  return w;
}

describe('Projection.fork()', () => {
  it('appending to a fork equals appending to the projection, and leaves the projection as it was (busy Fairway ledger, every commit)', () => {
    const w = busyLedger(40);
    const kinds = new Set(w.lines.map((l) => (JSON.parse(l) as { request: { kind: string } }).request.kind));
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['control', 'dispatch', 'dispatch_next', 'finish', 'observe', 'submit']));
    expect(walk(encoder.encode(w.text()), 'busy')).toBeGreaterThan(300);
  });

  it('does the same after a checkpoint root', () => {
    const w = busyLedger(30);
    const history = w.lines.map((line) => parseQueueCommit(JSON.parse(line)));
    const root = buildCheckpointCommit({ state: w.state, history }, { priorGitSha: 'e'.repeat(40), actor: admin, at: T0 + 30 * 60_000 });
    const compacted = new LedgerWriter();
    compacted.lines.push(commitOn(compacted.state, root));
    for (let i = 30; i < 60; i++) step(compacted, i);
    expect(walk(encoder.encode(compacted.text()), 'checkpoint')).toBeGreaterThan(100);
  });

  it.skipIf(referenceSkip(existsSync(LEDGER_1M)))('does the same on the reference-written ledger-1m', () => {
    expect(walk(new Uint8Array(readFileSync(LEDGER_1M)), 'ledger-1m')).toBeGreaterThan(400);
  });

  it('rejects exactly what the projection rejects, with the same code, and stays untouched (fuzzed appends)', () => {
    const lines = busyLedger(12).lines.map((l) => l.slice(0, -1));
    const codes = new Map<string, number>();
    let checked = 0;
    for (const v of variants(lines, 700, 20261202)) {
      const ends: number[] = [];
      v.bytes.forEach((b, i) => b === 0x0a && ends.push(i + 1));
      if (ends.length < 3) continue;
      // A prefix of whole lines (when it replays), then the rest appended.
      const cut = ends[Math.floor((ends.length - 1) * ((checked % 7) + 1) / 8)]!;
      let base: Projection;
      let twin: Projection;
      let before: Projection;
      try {
        base = replayLedger(v.bytes.subarray(0, cut));
        twin = replayLedger(v.bytes.subarray(0, cut));
        before = replayLedger(v.bytes.subarray(0, cut));
      } catch (e) {
        if (!isProtocolError(e)) throw e;
        continue;
      }
      const verdict = checkFork(base, twin, before, v.bytes.subarray(cut), `${v.kind} ${v.detail ?? ''}`);
      const key = verdict.ok ? 'accepted' : verdict.code;
      codes.set(key, (codes.get(key) ?? 0) + 1);
      checked++;
    }
    expect(checked).toBeGreaterThan(250);
    expect(codes.size, JSON.stringify([...codes])).toBeGreaterThan(8); // many distinct rejections, not one early check
  });

  it('a fork of a fork, and a fork after its projection moved, are refused or isolated', () => {
    const w = busyLedger(8);
    const frames = frameLedger(encoder.encode(w.text()));
    const bytes = encoder.encode(w.text());
    const cut = frames[frames.length - 2]!.start;
    const base = replayLedger(bytes.subarray(0, cut));
    const fork = base.fork();
    appendLedger(base, bytes.subarray(cut, frames[frames.length - 2]!.end + 1));
    expect(fork.valid).toBe(false);
    expect(() => fork.tip).toThrow(expect.objectContaining({ code: 'projection_invalid' }));
  });
});

describe('forkState (the copy-on-write view)', () => {
  it('Maps iterate in native order through overwrite, delete, re-add and clear', () => {
    const base = new Map<string, JsonObject>([['a', { n: 1 }], ['b', { n: 2 }], ['c', { n: 3 }]]);
    const native = new Map([...base].map(([k, v]) => [k, { ...v }]));
    const view = forkState({ m: base }).m;
    const ops: Array<(m: Map<string, JsonObject>) => unknown> = [
      (m) => m.set('b', { n: 20 }) === m, (m) => m.delete('a'), (m) => m.set('d', { n: 4 }) === m, (m) => m.set('a', { n: 10 }) === m,
      (m) => m.delete('d'), (m) => m.set('d', { n: 40 }) === m, (m) => ((m.get('c') as { n: number }).n = 30), (m) => m.delete('zz'), (m) => m.has('a'), (m) => m.has('zz'),
    ];
    for (const op of ops) expect(op(view)).toEqual(op(native));
    expect([...view.entries()]).toEqual([...native.entries()]);
    expect(view.size).toBe(native.size);
    expect([...base.entries()]).toEqual([['a', { n: 1 }], ['b', { n: 2 }], ['c', { n: 3 }]]);
    view.clear();
    expect(view.size).toBe(0);
    expect(base.size).toBe(3);
  });

  it('arrays take pushes, patches, splices and sorts without touching the base', () => {
    const base = { list: [{ id: 3 }, { id: 1 }, { id: 2 }], plain: { x: [1, 2] } };
    const view = forkState(base);
    view.list.push({ id: 4 });
    view.list[0]!.id = 30;
    expect(view.list.map((e) => e.id)).toEqual([30, 1, 2, 4]);
    view.list.sort((a, b) => a.id - b.id);
    expect(view.list.map((e) => e.id)).toEqual([1, 2, 4, 30]);
    view.list.splice(1, 2);
    expect(view.list.map((e) => e.id)).toEqual([1, 30]);
    view.plain.x.push(3);
    expect(view.plain.x).toEqual([1, 2, 3]);
    expect(base).toEqual({ list: [{ id: 3 }, { id: 1 }, { id: 2 }], plain: { x: [1, 2] } });
    expect(view.list[1]).toBe(view.list[1]); // one view per object
  });

  it('refuses values it cannot serve', () => {
    const view = forkState({ bytes: new Uint8Array(2) });
    expect(() => view.bytes).toThrow(/cannot be forked/);
  });
});

/**
 * Every replay state field, written through a fork. The ledger is a checkpoint root (the
 * backing-Issue ledger compacted: issue links, an admitted `backing_issue`, earlier epochs'
 * projector rules) followed by more commits, so every field of `ReplayState` is set, the
 * optional ones (`checkpoint`, `budget`) included.
 */
function everyFieldLedger(): string {
  const root = checkpointOf(backingIssuesLedger().ledger);
  const w = new LedgerWriter();
  w.lines.push(commitOn(w.state, parseQueueCommit(JSON.parse(root))));
  const at = w.state.commits.at(-1)!.at + 1000;
  w.publish('after-root', queueProducer, at, submitRequest(w.state, [{ node_key: 'after', payload: { n: 1 } }], { graphId: 'g3', at }));
  return w.text();
}

/** Writes through `value` (a fork's view) down to `depth` levels along its first object members; returns what it wrote. */
function writeThrough(value: unknown, depth: number, path: string): string[] {
  if (typeof value !== 'object' || value === null || depth === 0) return [];
  const marker = { written: path };
  const writes: string[] = [];
  let next: unknown;
  if (value instanceof Map) {
    next = [...value.values()].find((v) => typeof v === 'object' && v !== null);
    value.set(`fork-only ${path}`, marker as never);
    writes.push(`${path}.set`);
  } else if (value instanceof Set) {
    value.add(`fork-only ${path}`);
    writes.push(`${path}.add`);
  } else if (Array.isArray(value)) {
    next = value.find((v) => typeof v === 'object' && v !== null);
    value.push(marker);
    writes.push(`${path}.push`);
  } else {
    next = Object.values(value).find((v) => typeof v === 'object' && v !== null);
    (value as Record<string, unknown>)[`forkOnly${depth}`] = marker;
    writes.push(`${path}.forkOnly${depth}`);
  }
  return [...writes, ...writeThrough(next, depth - 1, `${path}.*`)];
}

describe('Projection.fork() isolates every replay state field', () => {
  it('a replayed state has exactly the fields FORKED_FIELDS lists, and a write to each through a fork leaves the projection as it was', () => {
    const text = everyFieldLedger();
    const base = replayBytes(text);
    const before = replayBytes(text);
    const keys = Reflect.ownKeys(base.state).map(String).sort();
    // The ledger sets every field (optional ones included), and FORKED_FIELDS names each one.
    expect(keys).toEqual(Object.keys(FORKED_FIELDS).sort());
    expect(base.state.checkpoint).toBeDefined();
    expect(base.state.budget).toBeDefined();
    expect(base.state.linkedIssues.size).toBeGreaterThan(0);
    expect(base.state.backingIssues.size).toBeGreaterThan(0);
    expect(base.state.issueLinks.size).toBeGreaterThan(0);
    for (const key of keys) {
      const fork = base.fork();
      const state = fork.state as unknown as Record<string, unknown>;
      const writes = typeof state[key] === 'object' && state[key] !== null ? writeThrough(state[key], 3, key) : ((state[key] = `fork-only ${key}`), [key]);
      expect(writes.length, key).toBeGreaterThan(0);
      // The fork sees its writes; the projection does not.
      expect(difference(fork.state, before.state), key).not.toBeNull();
      expect(difference(base.state, before.state), `${key}: the write through the fork reached the projection`).toBeNull();
    }
  });

  it('fork() refuses a state carrying a field FORKED_FIELDS does not name, or of another kind', () => {
    const p = replayBytes(everyFieldLedger());
    (p.state as unknown as Record<string, unknown>).unlistedIndex = new Map();
    expect(() => p.fork()).toThrow(/unlistedIndex is not in FORKED_FIELDS/);
    delete (p.state as unknown as Record<string, unknown>).unlistedIndex;
    const q = replayBytes(everyFieldLedger());
    (q.state as unknown as Record<string, unknown>).linkedIssues = new Set();
    expect(() => q.fork()).toThrow(/linkedIssues is a other, FORKED_FIELDS says map/);
    expect(() => p.fork()).not.toThrow();
  });

  it('a fork that admits Work with a backing Issue and links an Issue leaves the projection\'s Work, linkedIssues and backingIssues as they were; the projection then links the same Issues to other Work', () => {
    const start = linkScenario();
    const base = replayBytes(start.text);
    const before = replayBytes(start.text);
    const forkTail = start.continueWith('y', start.x);
    const fork = base.fork();
    appendLedger(fork, encoder.encode(forkTail.tail));
    // The fork admitted Work y with GRANTED_ISSUE and linked CREATED_ISSUE to x.
    expect([...fork.state.backingIssues.values()]).toContain(forkTail.admitted);
    expect([...fork.state.linkedIssues.values()]).toEqual([start.x]);
    expect(fork.state.works.has(forkTail.admitted)).toBe(true);
    expect(fork.state.issueLinks.get(start.x)?.map((r) => r.kind)).toEqual(['IssueLink']);
    // The projection did not.
    expect(base.state.backingIssues.size).toBe(0);
    expect(base.state.linkedIssues.size).toBe(0);
    expect(base.state.works.has(forkTail.admitted)).toBe(false);
    expect(base.state.issueLinks.has(start.x)).toBe(false);
    expect(difference(base.state, before.state)).toBeNull();
    // So another Work may take the same Issues on the projection (one Work per Issue is per history).
    const other = start.continueWith('z', start.d);
    appendLedger(base, encoder.encode(other.tail));
    expect([...base.state.linkedIssues.values()]).toEqual([start.d]);
    expect([...base.state.backingIssues.values()]).toEqual([other.admitted]);
  });
});

/**
 * A queue with Work x completed (Result verified, released) and Work d available; `continueWith`
 * builds the tail that admits Work `node` with GRANTED_ISSUE and links CREATED_ISSUE to `linked`.
 */
function linkScenario(): { text: string; x: string; d: string; continueWith(node: string, linked: string): { tail: string; admitted: string } } {
  const build = () => {
    const q = new TestQueue(policyWith([rule({ completion_policy: 'close-on-result', backing_issues: [GRANTED_ISSUE as never] })]), [{ node_key: 'x', payload: {} }, { node_key: 'd', payload: {} }]);
    const { workId: x, claimId: claim, dispatchId } = completedClaim(q, '301');
    q.w.publish('result', reconciler, q.tick(), result(q.state, x, { outputs: [{ type: 'create_issue' }] as unknown as JsonObject[] }, q.t, 'r1'));
    q.w.publish('release', reconciler, q.tick(), release(q.state, dispatchId, q.t));
    return { q, x, claim, d: q.workId('d') };
  };
  const first = build();
  const text = first.q.text();
  return {
    text, x: first.x, d: first.d,
    continueWith(node, linked) {
      const { q, claim } = build();
      expect(q.text()).toBe(text);
      q.w.publish(`submit-${node}`, queueProducer, q.tick(), submitRequest(q.state, [{ node_key: node, payload: {}, backing_issue: GRANTED_ISSUE }], { graphId: `g-${node}`, at: q.t }));
      const admitted = q.workId(node);
      const link = linked === first.x
        ? { kind: 'IssueLink', work_id: linked, claim_id: claim, resource: CREATED_ISSUE, projector_ref: RULE_REF }
        : { kind: 'IssueLink', work_id: linked, resource: CREATED_ISSUE, projector_ref: RULE_REF };
      q.w.publish(`project-${node}`, projectorActor, q.tick(), operationsRequest('observe', [link as never]));
      return { tail: q.text().slice(text.length), admitted };
    },
  };
}
