/**
 * The ledger fuzzer (used by ledger-fuzz.test.ts). Replay never crashes (issue 10 §1): a seeded fuzzer over the reference
 * fixture ledger (`canonical-prefix.json` `canonical`) and a prefix of a
 * reference-written ledger (`gh-aw-generated/ledger-1m.jsonl`). Every variant
 * (byte flips, truncations, invalid UTF-8, duplicate / reordered / missing
 * lines, forged ids and fingerprints, type confusion, dropped and unknown
 * members) is fed as bytes through the real framing. Each one either replays
 * to the same projection as a semantically equal ledger, or is rejected with a
 * `ProtocolError` carrying a specific code (never `ledger_invalid` from a
 * wrapped exception, never `internal_error`). Any other exception fails.
 *
 * FUZZ_SEED and FUZZ_RUNS (per source) override the defaults for longer runs.
 */
import { prng } from '../../bench/generated-graphs.ts';
import { canonicalize } from '../../engine/codec/index.ts';
import { isProtocolError } from '../../engine/errors.ts';
import { requestFingerprint } from '../../engine/identity/index.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { stateDigest } from '../../engine/replay/checkpoint.ts';
import { replayLedger, summarize, type Projection } from '../../engine/replay/index.ts';
import { exerciseViews } from '../support/views.ts';

const encoder = new TextEncoder();
/** Codes that would mean "an exception was wrapped" rather than a verdict. */
const NOT_A_VERDICT = new Set(['ledger_invalid', 'internal_error']);

type Rand = ReturnType<typeof prng>;
const int = (r: Rand, n: number): number => Math.floor(r() * n);
const pick = <T,>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)]!;

/** What must agree between a variant and its semantically equal ledger. */
function projectionDigest(p: Projection): unknown {
  const { state } = p;
  return {
    ...summarize(p),
    works: [...p.works()].map((w) => [w.workId, w.state, w.barrier]).sort(),
    claims: [...state.claims.values()].map((c) => [c.claimId, c.state]).sort(),
    dispatches: [...state.dispatches.values()].map((d) => [d.dispatchId, d.state, d.released]).sort(),
  };
}

export interface Variant {
  kind: string;
  bytes: Uint8Array;
  /** A ledger known to be semantically equal (exact duplicates, reorderings, a prefix at a line boundary). */
  equal?: string;
  /** What was changed (reports). */
  detail?: string;
}

export const ln = (lines: readonly string[]): string => lines.map((l) => `${l}\n`).join('');

function shuffle<T>(r: Rand, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = int(r, i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Every JSON path of a value (objects and arrays), for type confusion. */
function paths(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (v !== null && typeof v === 'object') {
    for (const [k, child] of Object.entries(v)) {
      const p = [...prefix, Array.isArray(v) ? Number(k) : k];
      out.push(p);
      paths(child, p, out);
    }
  }
  return out;
}

function setAt(root: Record<string, unknown>, path: (string | number)[], value: unknown): void {
  let cur = root as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[path[path.length - 1]!] = value;
}

function getAt(root: unknown, path: (string | number)[]): unknown {
  let cur = root as Record<string | number, unknown>;
  for (const k of path) cur = cur[k] as Record<string | number, unknown>;
  return cur;
}

function deleteAt(root: Record<string, unknown>, path: (string | number)[]): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown> | unknown[];
  if (Array.isArray(parent)) parent.splice(path[path.length - 1] as number, 1);
  else delete parent[path[path.length - 1]!];
}

/** A value of another type than `v` (number↔string, null, arrays, objects, booleans, extremes). */
function confused(r: Rand, v: unknown): unknown {
  const options: unknown[] = [null, [], {}, true, false, 0, -1, 1.5, 2 ** 53, '', 'x', [v], { v }, '__proto__', 'constructor'];
  if (typeof v === 'number') options.push(String(v), `${v}`.padStart(3, '0'), -v, v + 1, Number.MAX_SAFE_INTEGER + 2);
  if (typeof v === 'string') {
    options.push(Number(v.replace(/\D/g, '') || 0), `${v}x`, v.toUpperCase(), v.slice(1), `${v}\u0000`, '\ud800');
  }
  if (Array.isArray(v)) options.push(v.slice(1), [...v, ...v], v.length > 0 ? [v[0], v[0]] : [{}], Object.fromEntries(v.entries()));
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) options.push(Object.values(v), { ...v, extra: 1 }, Object.keys(v));
  return pick(r, options);
}

/** Recomputes the request fingerprint after an edit (so the edit reaches the rules past the envelope). */
function reseal(c: Record<string, unknown>): void {
  try {
    const request = c.request as Record<string, unknown>;
    const op = (c.operations as Record<string, unknown>[] | undefined)?.[0];
    if (request.kind === 'checkpoint' && op?.kind === 'Checkpoint' && op.state !== null && typeof op.state === 'object') {
      // A checkpoint's state is sealed by state_sha256 (operation and parameters): reseal it too,
      // so the edit reaches the checkpoint reader instead of stopping at the digest.
      const digest = stateDigest(op.state as JsonObject);
      op.state_sha256 = digest;
      if (request.parameters !== null && typeof request.parameters === 'object') (request.parameters as Record<string, unknown>).state_sha256 = digest;
    }
    request.fingerprint = requestFingerprint(c.actor as JsonValue, request.kind as string, request.parameters as JsonValue);
  } catch {
    // the edit broke the envelope itself; leave the fingerprint as it was
  }
}

function canonicalLine(value: unknown): string {
  try {
    return canonicalize(value as JsonValue);
  } catch {
    return JSON.stringify(value);
  }
}

function variant(r: Rand, lines: readonly string[], text: string): Variant {
  const bytes = encoder.encode(text);
  const n = lines.length;
  const k = int(r, n);
  const op = int(r, 16);
  switch (op) {
    case 0: { // byte flips (1-3)
      const b = bytes.slice();
      for (let i = 0, m = 1 + int(r, 3); i < m; i++) {
        const at = int(r, b.length);
        b[at] = b[at]! ^ (1 + int(r, 255));
      }
      return { kind: 'byte_flip', bytes: b };
    }
    case 1: { // truncation at any byte; at a line boundary it is a shorter valid ledger
      const cut = int(r, bytes.length);
      const b = bytes.slice(0, cut);
      // Cutting at byte 0 leaves an empty ledger: ledger_empty (issue 18 §4), not an equal one.
      const boundary = cut > 0 && bytes[cut - 1] === 0x0a;
      return boundary ? { kind: 'truncate_line', bytes: b, equal: Buffer.from(b).toString('utf8') } : { kind: 'truncate', bytes: b };
    }
    case 2: { // invalid UTF-8 inserted or overwritten
      const bad = pick(r, [[0xff], [0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x80]]);
      const at = int(r, bytes.length);
      const rest = bytes.subarray(r() < 0.5 ? at : Math.min(bytes.length, at + bad.length)); // insert or overwrite
      const b = new Uint8Array(at + bad.length + rest.length);
      b.set(bytes.subarray(0, at));
      b.set(bad, at);
      b.set(rest, at + bad.length);
      return { kind: 'invalid_utf8', bytes: b };
    }
    case 3: { // exact duplicates anywhere
      const out = [...lines];
      for (let i = 0, m = 1 + int(r, 4); i < m; i++) out.splice(int(r, out.length + 1), 0, pick(r, lines));
      return { kind: 'duplicate', bytes: encoder.encode(ln(out)), equal: text };
    }
    case 4: // reordering (possibly with duplicates)
      return { kind: 'reorder', bytes: encoder.encode(ln(r() < 0.5 ? shuffle(r, lines) : [...shuffle(r, lines), pick(r, lines)])), equal: text };
    case 5: { // missing line(s)
      const out = lines.filter((_, i) => i !== k && (r() > 0.05));
      // Dropping the only line leaves an empty ledger: ledger_empty (issue 18 §4), not an equal ledger.
      const tail = k === n - 1 && out.length === n - 1 && out.length > 0;
      return tail ? { kind: 'missing_tail', bytes: encoder.encode(ln(out)), equal: ln(out) } : { kind: 'missing', bytes: encoder.encode(ln(out)) };
    }
    case 6: case 7: { // forged id / previous (with and without the successor following it)
      const c = JSON.parse(lines[k]!) as Record<string, unknown>;
      const forged = pick(r, [`${c.id as string}0`, 'q_' + '0'.repeat(64), lines[int(r, n)]!.slice(7, 30), (JSON.parse(lines[int(r, n)]!) as { id: string }).id, '']);
      const field = op === 6 ? 'id' : 'previous';
      c[field] = op === 7 && r() < 0.3 ? null : forged;
      const out = [...lines];
      out[k] = canonicalLine(c);
      return { kind: `forged_${field}`, bytes: encoder.encode(ln(out)) };
    }
    case 8: { // forged fingerprint
      const c = JSON.parse(lines[k]!) as { request: Record<string, unknown> };
      const f = String(c.request.fingerprint);
      c.request.fingerprint = pick(r, [f.replace(/.$/, (ch) => (ch === '0' ? '1' : '0')), '0'.repeat(64), f.toUpperCase(), f.slice(1), 12345]);
      const out = [...lines];
      out[k] = canonicalLine(c);
      return { kind: 'forged_fingerprint', bytes: encoder.encode(ln(out)) };
    }
    case 9: case 10: case 11: case 12: { // type confusion at a random path (resealed most of the time)
      const c = JSON.parse(lines[k]!) as Record<string, unknown>;
      const all = paths(c);
      const inState = all.filter((p) => p[0] === 'operations' && p[2] === 'state' && p.length > 3);
      if (inState.length > 0 && r() < 0.8) all.splice(0, all.length, ...inState); // checkpoint roots: aim at the state
      const path = pick(r, all);
      const value = confused(r, getAt(c, path));
      setAt(c, path, value);
      if (r() < 0.8) reseal(c);
      const out = [...lines];
      out[k] = canonicalLine(c);
      return { kind: 'type_confusion', bytes: encoder.encode(ln(out)), detail: `line ${k + 1}: ${path.join('.')} = ${JSON.stringify(value)}` };
    }
    case 13: { // a member dropped, or an unknown member added (resealed)
      const c = JSON.parse(lines[k]!) as Record<string, unknown>;
      const path = pick(r, paths(c));
      if (r() < 0.6) deleteAt(c, path);
      else {
        const parent = path.length > 1 ? getAt(c, path.slice(0, -1)) : c;
        if (parent !== null && typeof parent === 'object' && !Array.isArray(parent)) (parent as Record<string, unknown>)[pick(r, ['extra', 'id', '__proto__', 'x-unknown'])] = pick(r, [1, 'y', null, {}]);
      }
      reseal(c);
      const out = [...lines];
      out[k] = canonicalLine(c);
      return { kind: 'member_edit', bytes: encoder.encode(ln(out)) };
    }
    case 14: { // line-level framing damage: blank line, CRLF, BOM, a line split in two
      const out = [...lines];
      const what = int(r, 4);
      if (what === 0) out.splice(k, 0, pick(r, ['', ' ', '\t']));
      else if (what === 1) out[k] = `${out[k]}\r`;
      else if (what === 2) out[0] = `\ufeff${out[0]}`;
      else {
        const at = int(r, out[k]!.length);
        out.splice(k, 1, out[k]!.slice(0, at), out[k]!.slice(at));
      }
      return { kind: 'framing', bytes: encoder.encode(ln(out)) };
    }
    default: { // a value swapped in from the same path of another commit (resealed)
      const a = JSON.parse(lines[k]!) as Record<string, unknown>;
      const b = JSON.parse(lines[int(r, n)]!) as Record<string, unknown>;
      const path = pick(r, paths(a));
      let donor: unknown;
      try {
        donor = getAt(b, path);
      } catch {
        donor = undefined;
      }
      setAt(a, path, donor === undefined ? confused(r, getAt(a, path)) : structuredClone(donor));
      reseal(a);
      const out = [...lines];
      out[k] = canonicalLine(a);
      return { kind: 'value_swap', bytes: encoder.encode(ln(out)) };
    }
  }
}

export interface Finding {
  kind: string;
  detail?: string;
  error: string;
  input: string;
}

/** The ledger's lines re-encoded canonically: what an accepted variant must agree with. */
function canonicalForm(bytes: Uint8Array): string {
  const text = Buffer.from(bytes).toString('utf8');
  return ln(text.split('\n').filter((l) => l.length > 0).map((l) => canonicalLine(JSON.parse(l))));
}

/** `runs` seeded variants of the ledger `lines` (for differential checks of other replay paths). */
export function* variants(lines: readonly string[], runs: number, seed: number): Generator<Variant> {
  const text = ln(lines);
  const r = prng(seed);
  for (let i = 0; i < runs; i++) yield variant(r, lines, text);
}

export function run(source: string, lines: readonly string[], runs: number, seed: number, views = false): { findings: Finding[]; kinds: Map<string, Map<string, number>>; ms: number } {
  const text = ln(lines);
  const r = prng(seed);
  const digests = new Map<string, string>();
  const digestOf = (ledger: string): string => {
    let d = digests.get(ledger);
    if (d === undefined) {
      d = JSON.stringify(projectionDigest(replayLedger(encoder.encode(ledger))));
      digests.set(ledger, d);
    }
    return d;
  };
  const findings: Finding[] = [];
  const kinds = new Map<string, Map<string, number>>();
  const started = performance.now();
  for (let i = 0; i < runs; i++) {
    const v = variant(r, lines, text);
    let verdict: string;
    try {
      const p = replayLedger(v.bytes);
      if (views) exerciseViews(p, p.state.commits[p.state.commits.length - 1]?.at ?? 0, 3, { whatIf: false });
      const got = JSON.stringify(projectionDigest(p));
      const equal = v.equal ?? canonicalForm(v.bytes);
      if (got !== digestOf(equal)) findings.push({ kind: v.kind, error: `accepted with a projection that differs from its semantically equal ledger`, input: Buffer.from(v.bytes).toString('base64') });
      verdict = 'accepted';
    } catch (e) {
      if (isProtocolError(e) && typeof e.code === 'string' && /^[a-z][a-z0-9_]*$/.test(e.code) && !NOT_A_VERDICT.has(e.code)) {
        verdict = e.code;
        if (v.equal !== undefined) {
          findings.push({ kind: v.kind, error: `a semantically equal ledger was rejected: ${e.code}: ${e.message}`, input: Buffer.from(v.bytes).toString('base64') });
        }
      } else {
        verdict = 'CRASH';
        findings.push({ kind: v.kind, detail: v.detail, error: e instanceof Error ? `${e.name}: ${e.message}\n${e.stack?.split('\n').slice(1, 6).join('\n')}` : String(e), input: Buffer.from(v.bytes).toString('base64') });
      }
    }
    const byKind = kinds.get(v.kind) ?? new Map<string, number>();
    byKind.set(verdict, (byKind.get(verdict) ?? 0) + 1);
    kinds.set(v.kind, byKind);
  }
  const ms = performance.now() - started;
  // One line per mutation kind: how many variants and which verdicts (visible with --reporter=verbose).
  console.log(`${source}: ${runs} variants in ${ms.toFixed(0)} ms (seed ${seed})\n${[...kinds].map(([k, m]) => `  ${k}: ${[...m].sort((a, b) => b[1] - a[1]).map(([c, x]) => `${c} ${x}`).join(', ')}`).join('\n')}`);
  return { findings, kinds, ms };
}

export function report(findings: Finding[]): string {
  return findings.slice(0, 5).map((f) => `[${f.kind}${f.detail ? `: ${f.detail}` : ''}] ${f.error}\n  input (base64, first 400): ${f.input.slice(0, 400)}`).join('\n\n');
}

