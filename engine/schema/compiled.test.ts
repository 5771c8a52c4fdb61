/**
 * The generated validator (compiled.ts) against zod itself, the one source of truth: on every
 * QueueCommit of every reference fixture, every record of the reference-written and generated
 * ledgers, and thousands of mutated records, PROVEN must mean "zod accepts, and its output
 * equals the record" and INVALID "zod rejects"; `parseQueueCommit` must answer exactly what
 * zod's parser answers (value, or code and message), and so must zod without its generated fast
 * path (`jitless`, how parseQueueCommit parses its first unproven records). Replay's alias of
 * the request parameters' copy of the operations is checked the same way, with both copies
 * mutated alike.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { describeReference, REFERENCE_ROOT } from '../../tests/support/reference.ts';
import { isProtocolError } from '../errors.ts';
import { compileValidator, INVALID, PROVEN, UNPROVEN, type Verdict } from './compiled.ts';
import { OperationsParametersSchema, QueueCommitSchema, SubmitParametersSchema, parseQueueCommit, parseWith } from './index.ts';

type Json = any;
type Path = Array<string | number>;

const fast = compileValidator(QueueCommitSchema, {
  proven: QueueCommitSchema.shape.operations,
  arrays: [SubmitParametersSchema.shape.nodes, OperationsParametersSchema.shape.operations],
});

const FIXTURES = new URL('gh-aw/specs/work-queue/fixtures/', REFERENCE_ROOT);
const LEDGERS = ['gh-aw-generated/ledger-1m.jsonl', 'gh-aw-generated/ledger-16m.jsonl'].map((p) => new URL(p, REFERENCE_ROOT));
const present = existsSync(fileURLToPath(FIXTURES)) && LEDGERS.every((u) => existsSync(fileURLToPath(u)));

/** What zod's own parser answers: the parsed value, or the ProtocolError's code and message. */
function zodAnswer(value: unknown): unknown {
  try {
    return { value: parseWith(QueueCommitSchema, value, 'QueueCommit', typeof value === 'object' && value !== null && typeof (value as Json).id === 'string' ? { commit: (value as Json).id } : {}) };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, message: e.message };
  }
}

function fastAnswer(value: unknown, alias?: unknown): unknown {
  try {
    return { value: parseQueueCommit(value, alias) };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, message: e.message };
  }
}

const tally: Record<Verdict, number> = { [INVALID]: 0, [PROVEN]: 0, [UNPROVEN]: 0 };

/** The verdict agrees with zod, and parseQueueCommit answers what zod answers. */
function expectAgrees(value: unknown, alias?: unknown, what = ''): Verdict {
  const verdict = fast(value, alias);
  tally[verdict] += 1;
  const zod = QueueCommitSchema.safeParse(value);
  if (verdict === PROVEN) {
    expect(zod.success, `${what}: proven but zod rejects: ${JSON.stringify(zod.error?.issues[0])}`).toBe(true);
    expect(zod.data, what).toEqual(value);
  }
  if (verdict === INVALID) expect(zod.success, `${what}: invalid but zod accepts`).toBe(false);
  // parseQueueCommit's first unproven records skip zod's generated fast path: same answer.
  const jitless = QueueCommitSchema.safeParse(value, { jitless: true });
  expect(jitless.success ? jitless.data : jitless.error.issues, `${what}: jitless`).toEqual(zod.success ? zod.data : zod.error.issues);
  expect(fastAnswer(value, alias), what).toEqual(zodAnswer(value));
  return verdict;
}

/** Every object in a fixture that looks like a QueueCommit (version + operations). */
function commitsIn(value: Json, out: Json[] = []): Json[] {
  if (Array.isArray(value)) for (const v of value) commitsIn(v, out);
  else if (value !== null && typeof value === 'object') {
    if ('version' in value && 'operations' in value) out.push(value);
    else for (const v of Object.values(value)) commitsIn(v, out);
  }
  return out;
}

const lines = (text: string): Json[] => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json);

/** The parameters' array that repeats the operations text, if any (what replay hands as alias). */
function aliasOf(record: Json): { name: string; array: Json[] } | null {
  const params = record?.request?.parameters;
  if (params === null || typeof params !== 'object') return null;
  for (const name of ['nodes', 'operations']) {
    if (Array.isArray(params[name]) && Object.keys(params).length === 1 && JSON.stringify(params[name]) === JSON.stringify(record.operations)) return { name, array: params[name] };
  }
  return null;
}

// ------------------------------------------------------------------ mutations

const REPLACEMENTS: unknown[] = [
  null, true, false, 0, 1, -1, 1.5, -0, 2 ** 53, 4096, 4097, 256, 257, 16, 17, 5, 6, Number.MAX_SAFE_INTEGER,
  '', 'x', 'a'.repeat(256), 'a'.repeat(257), '😀'.repeat(64), '😀'.repeat(65), 'é'.repeat(128), 'é'.repeat(129), '\u0001', 'a\u007f', '\ud800', 'a\udc00b',
  '0', '01', '1001', 'f'.repeat(64), 'F'.repeat(64), '1'.repeat(40), 'f'.repeat(63), 'f'.repeat(65), `${'f'.repeat(64)}\n`, `${'1'.repeat(40)}\n`, 'ｆ'.repeat(64), 'Work', 'Claim', 'Checkpoint', 'Policy', 'Result', 'Observation', 'Dispatch',
  'submit', 'result', 'dispatch_next', 'finish', 'checkpoint', 'completed', 'cancelled', 'bound', 'worker', 'producer', 'ok.reason', '-bad',
  [], {}, ['x'], ['x', 'x'], [{}], { kind: 'Work' }, { kind: 'work', work_id: 'w' }, { __proto__: null, a: 1 },
];

function nodePaths(value: Json, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (Array.isArray(value)) value.forEach((v, i) => nodePaths(v, [...path, i], out));
  else if (value !== null && typeof value === 'object') for (const k of Object.keys(value)) nodePaths(value[k], [...path, k], out);
  return out;
}

function parentOf(root: Json, path: Path): Json {
  let node = root;
  for (const step of path.slice(0, -1)) node = node[step];
  return node;
}

interface Mutation { kind: number; replacement: number; key: number }

/** Applies one mutation at `path` (root path: only key additions); returns false when it does not apply. */
function mutateAt(root: Json, path: Path, m: Mutation): boolean {
  const target = path.length === 0 ? root : parentOf(root, path)[path[path.length - 1]!];
  const replacement = structuredClone(REPLACEMENTS[m.replacement % REPLACEMENTS.length]);
  switch (m.kind % 6) {
    case 0:
    case 1: {
      if (path.length === 0) return false;
      parentOf(root, path)[path[path.length - 1]!] = replacement;
      return true;
    }
    case 2: {
      if (path.length === 0) return false;
      const parent = parentOf(root, path);
      const last = path[path.length - 1]!;
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      return true;
    }
    case 3: {
      if (target === null || typeof target !== 'object' || Array.isArray(target)) return false;
      const names = ['extra', 'kind', 'reason', 'evidence', 'trace', '__proto__', 'constructor', 'claim_id', 'work_id'];
      Object.defineProperty(target, names[m.key % names.length]!, { value: replacement, enumerable: true, writable: true, configurable: true });
      return true;
    }
    case 4: {
      if (!Array.isArray(target) || target.length === 0) return false;
      target.push(structuredClone(target[m.key % target.length]));
      return true;
    }
    default: {
      if (!Array.isArray(target)) return false;
      if (m.key % 3 === 0) target.length = 0;
      else target.push(...Array.from({ length: 256 }, () => structuredClone(target[0] ?? replacement)));
      return true;
    }
  }
}

const mutationArb = fc.record({ record: fc.nat(), path: fc.nat(), kind: fc.nat(), replacement: fc.nat(), key: fc.nat() });

function checkMutations(records: Json[], runs: number, seed: number): void {
  fc.assert(
    fc.property(mutationArb, (m) => {
      const record = structuredClone(records[m.record % records.length]);
      const paths = nodePaths(record);
      const path = paths[m.path % paths.length]!;
      if (!mutateAt(record, path, m)) return;
      expectAgrees(record, undefined, `mutation ${JSON.stringify({ ...m, path })}`);
    }),
    { numRuns: runs, seed },
  );
}

function checkAliasMutations(records: Json[], runs: number, seed: number): void {
  const aliased = records.filter((r) => aliasOf(r) !== null);
  expect(aliased.length).toBeGreaterThan(0);
  fc.assert(
    fc.property(mutationArb, fc.boolean(), (m, alike) => {
      const record = structuredClone(aliased[m.record % aliased.length]);
      const { name } = aliasOf(record)!;
      const paths = nodePaths(record.operations);
      const path = paths[m.path % paths.length]!;
      // Both copies alike (the alias contract), or the whole record otherwise with no alias.
      if (alike) {
        const a = mutateAt({ operations: record.operations }, ['operations', ...path], m);
        const b = mutateAt({ operations: record.request.parameters[name] }, ['operations', ...path], m);
        if (!a || !b) return;
        expect(record.request.parameters[name]).toEqual(record.operations);
        expectAgrees(record, record.request.parameters[name], `aliased mutation ${JSON.stringify({ ...m, path })}`);
      } else {
        if (!mutateAt(record, ['operations', ...path], m)) return;
        expectAgrees(record, undefined, `mutation of operations only ${JSON.stringify({ ...m, path })}`);
      }
    }),
    { numRuns: runs, seed },
  );
}

describe('generated validator ≡ zod (compiled.ts)', () => {
  it('proves everything but the transforms of the closed schema (Policy records go to zod)', () => {
    expect([...fast.unproven].sort()).toEqual(['pipe', 'pipe', 'pipe']);
  });

  it('agrees on every record of generated ledgers, with and without the parameters alias, and on mutated records', () => {
    const records = [1, 2].flatMap((seed) => lines(generateLedger(200 * 1024, seed).text));
    for (const record of records) {
      expect(expectAgrees(record, undefined, record.id)).not.toBe(INVALID);
      const alias = aliasOf(record);
      if (alias !== null) expect(expectAgrees(record, alias.array, record.id)).not.toBe(INVALID);
    }
    checkMutations(records, 1500, 1);
    checkAliasMutations(records, 800, 2);
  });

  it('leaves to zod an alias whose elements the parameters do not allow (a Result among a submit\'s nodes)', () => {
    const records = lines(generateLedger(100 * 1024, 3).text);
    const submit = records.find((r) => r.request.kind === 'submit')!;
    const result = records.find((r) => r.request.kind === 'result')!;
    const record = structuredClone(submit);
    record.operations = [structuredClone(result.operations[0])];
    record.request.parameters.nodes = [structuredClone(result.operations[0])];
    expect(QueueCommitSchema.shape.operations.safeParse(record.operations).success).toBe(true);
    expect(fast(record, record.request.parameters.nodes)).not.toBe(PROVEN);
    expectAgrees(record, record.request.parameters.nodes, 'a Result as a submit node');
  });
});

describe('generated validator ≡ zod on constructs the wire schemas do not use yet', () => {
  /** PROVEN only where zod accepts (with an equal output), INVALID only where zod rejects. */
  function agreesOn(schema: z.ZodType, values: unknown[]): void {
    const check = compileValidator(schema);
    for (const value of values) {
      const verdict = check(value);
      const zod = schema.safeParse(value);
      if (verdict === PROVEN) {
        expect(zod.success, `${JSON.stringify(value)}: proven but zod rejects`).toBe(true);
        expect(zod.data).toEqual(value);
      }
      if (verdict === INVALID) expect(zod.success, `${JSON.stringify(value)}: invalid but zod accepts`).toBe(false);
    }
  }
  const strings = ['', 'a', 'ab', 'abc', '😀', '😀😀', 'a😀', '\ud83d', '\ud83d\ude00x', '😀😀😀😀'];

  it('string lengths are counted in code points, as zod counts them', () => {
    for (const n of [0, 1, 2, 3]) {
      agreesOn(z.string().min(n), strings);
      agreesOn(z.string().max(n), strings);
      agreesOn(z.string().length(n), strings);
    }
    expect(compileValidator(z.string().min(2))('😀')).toBe(INVALID);
    expect(compileValidator(z.string().length(2))('😀')).toBe(INVALID);
    expect(compileValidator(z.string().max(1))('😀')).toBe(PROVEN);
  });

  it('array lengths are counted in elements', () => {
    const arrays = [[], [1], [1, 2], [1, 2, 3]];
    for (const n of [0, 1, 2]) {
      agreesOn(z.array(z.number()).min(n), arrays);
      agreesOn(z.array(z.number()).max(n), arrays);
      agreesOn(z.array(z.number()).length(n), arrays);
    }
  });

  it('regular expressions: fixed-form ones as generated loops (pattern.ts), the others by the expression', () => {
    const texts = [...strings, 'f'.repeat(40), 'f'.repeat(64), `${'f'.repeat(64)}\n`, 'x'.repeat(3), 'A1', 'a-b', '1', '01', 'é'];
    for (const pattern of [/^[a-f0-9]{64}$/, /^(?:[a-f0-9]{40}|[a-f0-9]{64})$/, /^[1-9][0-9]*$/, /^x{2,}$/, /^[A-Z][0-9]$/i, /^a|b$/, /[^a]/, /^\w+$/, /b/g]) {
      agreesOn(z.string().regex(pattern), texts);
      agreesOn(z.string().regex(pattern).optional(), [...texts, undefined, 1]);
    }
    expect(compileValidator(z.string().regex(/^[a-f0-9]{64}$/)).source).toContain('function p0(s)');
    expect(compileValidator(z.string().regex(/^\w+$/)).source).not.toContain('function p0(s)');
  });

  it('a check with its own `when` condition, and a superRefine callback, are left to zod', () => {
    const conditional = z.string().refine((v) => v.length > 3, { when: () => false });
    expect(compileValidator(conditional)('ab')).toBe(UNPROVEN);
    agreesOn(conditional, strings);
    const callback = z.string().superRefine((v, ctx) => {
      if (v === 'a') ctx.addIssue({ code: 'custom', message: 'no a' });
    });
    expect(compileValidator(callback)('a')).toBe(UNPROVEN);
    agreesOn(callback, strings);
  });
});

describeReference(present, 'generated validator ≡ zod on the reference fixtures and ledgers', () => {
  it('every QueueCommit of every fixture, and mutations of them', () => {
    const commits = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).flatMap((f) => commitsIn(JSON.parse(readFileSync(new URL(f, FIXTURES), 'utf8'))));
    expect(commits.length).toBeGreaterThan(20);
    for (const commit of commits) expectAgrees(commit, undefined, commit.id);
    checkMutations(commits, 1500, 3);
  });

  it('leaves to zod an alias holding a Checkpoint operation (valid in operations, never in request parameters)', () => {
    const checkpoint = JSON.parse(readFileSync(new URL('checkpoint.json', FIXTURES), 'utf8'));
    const root = commitsIn(checkpoint).find((c) => c.request.kind === 'checkpoint')!;
    const control = commitsIn(JSON.parse(readFileSync(new URL('canonical-prefix.json', FIXTURES), 'utf8'))).find((c) => c.request.kind === 'control')!;
    const record = structuredClone(control);
    record.operations = [structuredClone(root.operations[0])];
    record.request.parameters = { operations: [structuredClone(root.operations[0])] };
    expect(QueueCommitSchema.shape.operations.safeParse(record.operations).success).toBe(true);
    expect(fast(record, record.request.parameters.operations)).not.toBe(PROVEN);
    expectAgrees(record, record.request.parameters.operations, 'a Checkpoint in request parameters');
  });

  it('every record of the reference-written ledgers (with the alias where it applies), and mutations of them', () => {
    const records = LEDGERS.flatMap((u) => lines(readFileSync(u, 'utf8')));
    let aliased = 0;
    for (const record of records) {
      expect(expectAgrees(record, undefined, record.id)).not.toBe(INVALID);
      const alias = aliasOf(record);
      if (alias !== null) {
        aliased += 1;
        expect(expectAgrees(record, alias.array, record.id)).not.toBe(INVALID);
      }
    }
    expect(aliased).toBeGreaterThan(1000);
    expect(tally[PROVEN]).toBeGreaterThan(records.length);
    checkMutations(records, 2000, 4);
    checkAliasMutations(records, 1000, 5);
  });
});
