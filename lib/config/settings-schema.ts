/**
 * The closed zod schema of the `work_queue` object of `.github/workflows/aw.json` (operator
 * reference "Repository scheduling settings"), with its error map: every problem is one
 * property-specific message, and `settingsProblem` names the property's path
 * (`work_queue.retry.max_attempts`, `work_queue.pools["gpu"].concurrency`, …).
 *
 * Values arrive as plain JSON or as lossless-json parse results, whose numbers keep their
 * source text (so `16.0` is not an integer). Maps keyed by user input (fairness keys, pools)
 * are `ownRecord`s: null-prototype objects holding every member as an own property.
 * Defaults and inheritance are applied by the caller (lib/config/aw.ts).
 */
import { isLosslessNumber } from 'lossless-json';
import { z } from 'zod';
import { isWellFormedUnicode, utf8ByteLength } from '../../engine/codec/index.ts';
import { isIdentity } from '../../engine/identity/validate.ts';
import { firstIssue } from '../../engine/schema/issues.ts';
import { ownRecord } from '../../engine/schema/record.ts';

/** The settings table's bounds. */
export const SETTINGS_BOUNDS = {
  concurrency: [1, 4096],
  pending_limit: [1, 4096],
  max_attempts: [1, 16],
  backoff_seconds: [1, 3600],
  weight: [1, 1000],
  per_account_limit: [1, 4096],
  pools: 64,
  accounting_keys: 1024,
  key_bytes: 128,
  label_bytes: 33,
} as const;

export const DEFAULT_ISSUE_LABEL = 'work';

// ------------------------------------------------------------------ the error map

const NO_NULL = 'null is not allowed; omit the property to use its default';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isLosslessNumber(value)) return `the number ${value.value}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return `${typeof value} ${String(value)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

/** "expected …, found …" for a value of the wrong type; null is never a default. */
const expected = (what: string, nullMessage = NO_NULL) => (issue: { input?: unknown }): string =>
  issue.input === null ? nullMessage : `expected ${what}, found ${describe(issue.input)}`;

/** A value that must be a JSON object (a lossless-json number is an object too, but never this). */
const objectOnly = (message: (issue: { input?: unknown }) => string) => z.unknown().check((ctx) => {
  if (!isObject(ctx.value)) ctx.issues.push({ code: 'custom', input: ctx.value, message: message({ input: ctx.value }) });
});

/** A closed settings object: unknown properties are errors that list the allowed ones. */
function closed<S extends z.core.$ZodLooseShape>(shape: S, hint: (name: string) => string = () => '') {
  const allowed = Object.keys(shape).join(', ');
  return objectOnly(expected('an object')).pipe(z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown property${hint(issue.keys[0]!)} (allowed: ${allowed})` : undefined),
  }));
}

const INTEGER_TEXT = /^-?(?:0|[1-9][0-9]*)$/;

/** An integer in [min, max]: plain numbers and lossless-json numbers (exact source text). */
function integer([min, max]: readonly [number, number]) {
  const range = `must be an integer in ${min}..${max}`;
  return z.preprocess(
    (v) => (isLosslessNumber(v) && INTEGER_TEXT.test(v.value) ? Number(v.value) : v),
    z.int({ error: (issue) => (issue.code !== 'invalid_type' ? range : typeof issue.input === 'number' ? `expected an integer, found the number ${issue.input}` : expected('an integer')(issue)) })
      .min(min, { error: range }).max(max, { error: range }),
  );
}

/** A string of well-formed Unicode. */
const text = () => z.string({ error: expected('a string') }).refine(isWellFormedUnicode, { error: 'contains an unpaired surrogate' });

/** A map keyed by user input, with at most `most` members (checked before any member). */
function keyed<K extends z.ZodType<string>, V extends z.ZodType>(key: K, value: V, tooMany: (count: number, members: Record<string, unknown>) => string | null) {
  return objectOnly(expected('an object'))
    .check((ctx) => {
      const members = ctx.value as Record<string, unknown>;
      const problem = tooMany(Object.keys(members).length, members);
      if (problem !== null) ctx.issues.push({ code: 'custom', input: ctx.value, message: problem });
    })
    .pipe(ownRecord(key, value, { error: (issue: { code?: string; issues?: Array<{ message: string }> }) => issue.issues?.[0]?.message ?? 'invalid member' }));
}

// ------------------------------------------------------------------ the table

const Retry = closed({
  max_attempts: integer(SETTINGS_BOUNDS.max_attempts).optional(),
  backoff_seconds: integer(SETTINGS_BOUNDS.backoff_seconds).optional(),
});

const ClassWeights = z.array(z.unknown(), { error: expected('an array of five integer weights') })
  .length(5, { error: (issue) => `expected exactly five class weights (priorities 1-5), found ${(issue.input as unknown[]).length}` })
  .pipe(z.array(integer(SETTINGS_BOUNDS.weight)));

const FairnessKey = z.string()
  .refine(isWellFormedUnicode, { error: 'fairness key contains an unpaired surrogate' })
  .refine((k) => utf8ByteLength(k) <= SETTINGS_BOUNDS.key_bytes, { error: `fairness key exceeds ${SETTINGS_BOUNDS.key_bytes} UTF-8 bytes` });

/** The empty key always exists with weight 1; at most 1,024 keys including it. */
const AccountingWeights = keyed(FairnessKey, integer(SETTINGS_BOUNDS.weight), (count, members) => {
  const total = count + (Object.hasOwn(members, '') ? 0 : 1);
  return total > SETTINGS_BOUNDS.accounting_keys ? `at most ${SETTINGS_BOUNDS.accounting_keys} fairness keys including the empty key; found ${total}` : null;
}).check((ctx) => {
  if (Object.hasOwn(ctx.value, '') && ctx.value[''] !== 1) ctx.issues.push({ code: 'custom', input: ctx.value, path: [''], message: 'the default (empty) fairness key retains weight 1' });
});

const Pool = closed({
  concurrency: integer(SETTINGS_BOUNDS.concurrency).optional(),
  retry: Retry.optional(),
  per_account_limit: integer(SETTINGS_BOUNDS.per_account_limit).optional(),
});

const PoolName = z.string().refine(isIdentity, { error: 'pool name must be 1..256 UTF-8 bytes without control characters' });

const Pools = keyed(PoolName, Pool, (count) => (count > SETTINGS_BOUNDS.pools ? `at most ${SETTINGS_BOUNDS.pools} pools; found ${count}` : null));

/** The problem with a tracking/status label prefix, or null (see `normalizeIssueLabel` in aw.ts). */
export function labelProblem(given: string): string | null {
  if (given.trim() === '') return 'the label prefix must not be blank';
  if (given.includes('${{')) return 'the label prefix must be a literal, not an expression';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000e-\u001f\u007f]/.test(given)) return 'the label prefix must not contain control characters';
  const label = normalizedLabel(given);
  if (utf8ByteLength(label) > SETTINGS_BOUNDS.label_bytes) {
    return `the label prefix is at most ${SETTINGS_BOUNDS.label_bytes} UTF-8 bytes after whitespace becomes hyphens (${JSON.stringify(label)} has ${utf8ByteLength(label)})`;
  }
  return null;
}

/** Each run of whitespace becomes one hyphen (leading/trailing whitespace dropped first). */
export function normalizedLabel(given: string): string {
  return given.trim().replace(/\s+/gu, '-');
}

const Label = text()
  .check((ctx) => {
    const problem = labelProblem(ctx.value);
    if (problem !== null) ctx.issues.push({ code: 'custom', input: ctx.value, message: problem });
  })
  .transform(normalizedLabel);

/** `true`, `false` or `{"label": "..."}`. */
const Issues = z.unknown()
  .check((ctx) => {
    const v = ctx.value;
    if (typeof v === 'boolean' || isObject(v)) return;
    ctx.issues.push({ code: 'custom', input: v, message: expected('true, false or {"label": "..."}', 'null is not allowed; use false to disable Issue projection')({ input: v }) });
  })
  .pipe(z.union([z.boolean(), closed({ label: Label.optional() })]));

const Mode = text().pipe(z.enum(['weighted-priority', 'strict-priority'], { error: 'expected "weighted-priority" or "strict-priority"' }));

/** The `work_queue` object as given: every property optional (lib/config/aw.ts fills in the defaults). */
export const WorkQueueSettingsSchema = closed({
  concurrency: integer(SETTINGS_BOUNDS.concurrency).optional(),
  pending_limit: integer(SETTINGS_BOUNDS.pending_limit).optional(),
  retry: Retry.optional(),
  mode: Mode.optional(),
  class_weights: ClassWeights.optional(),
  accounting_weights: AccountingWeights.optional(),
  pools: Pools.optional(),
  issues: Issues.optional(),
}, (name) => (name === 'work_queue' ? '; pass the work_queue object itself, not the whole aw.json' : ''));

export type GivenSettings = z.output<typeof WorkQueueSettingsSchema>;

/** The root of aw.json: a JSON object whose other sections are not ours. */
export const AwJsonSchema = objectOnly(expected('a JSON object', 'expected a JSON object, found null')).pipe(z.looseObject({ work_queue: z.unknown().optional() }));

/** `a.b` for identifier-like names, `a["x y"]` otherwise. */
export function member(path: string, name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
}

/** The first problem (document order) as the property path under `base` and its message. */
export function settingsProblem(error: z.ZodError, base: string): { path: string; message: string } {
  const issue = firstIssue(error.issues);
  const segments = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const path = segments.reduce<string>((at, s) => (typeof s === 'number' ? `${at}[${s}]` : member(at, String(s))), base);
  return { path, message: issue.message };
}
