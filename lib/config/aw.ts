/**
 * Repository scheduling settings: the `work_queue` object of
 * `.github/workflows/aw.json` (operator reference "Repository scheduling
 * settings"; spec 7.1). Missing file, missing section and `{}` resolve to the
 * defaults; unknown fields, nulls, wrong types and out-of-range values are
 * property-specific `settings_invalid` errors whose `path` names the property
 * (`work_queue.retry.max_attempts`, `work_queue.pools["gpu"].concurrency`, …).
 *
 * Pure: callers read the file and pass its bytes (`readAwJsonSettings`) or an
 * already parsed value (`parseWorkQueueSettings`). `policyFromSettings` turns
 * resolved settings into a version-3 QueuePolicy validated by the closed
 * `QueuePolicySchema`.
 *
 * Interpretation choices the table leaves open (documented here, tested):
 * - `pools`: the pool `default` always exists; an entry named `default`
 *   configures it, other entries add pools (at most 64 entries). Pool fields
 *   not given inherit the global `concurrency` / `retry`.
 * - `accounting_weights`: the empty key always has weight 1 (giving it any
 *   other weight is an error); at most 1,024 keys including the empty key.
 * - `concurrency` is both the logical and the native capacity of a pool.
 */
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import { isWellFormedUnicode, utf8ByteLength } from '../../engine/codec/index.ts';
import { ProtocolError } from '../../engine/errors.ts';
import { isIdentity } from '../../engine/identity/validate.ts';
import type { JsonObject } from '../../engine/json.ts';
import { QueuePolicySchema, type WorkerProfile } from '../../engine/schema/index.ts';
import { defineOwn, ownObject } from '../../engine/schema/record.ts';
import {
  CONTRACT_LIMITS, DEFAULT_CLASS_WEIGHTS, DEFAULT_MAX_CLAIMS, DEFAULT_MAX_OBSERVATION_AGE_MS, DEFAULT_MODE, DEFAULT_POOL_LIMIT,
  DEFAULT_RECONCILIATION, DEFAULT_RETRY, defaultLimits,
} from '../../engine/schema/defaults.ts';
import { isPlaceholderRef } from './placeholder.ts';

export type SchedulingModeSetting = 'weighted-priority' | 'strict-priority';

export interface RetrySettings {
  max_attempts: number;
  backoff_seconds: number;
}

export interface PoolSettings {
  /** Logical and native capacity of the pool. */
  concurrency: number;
  retry: RetrySettings;
  /** Outstanding-Claim limit per fairness key; absent = the key may use all pool capacity. */
  per_account_limit?: number;
}

export type IssueSettings = { enabled: false } | { enabled: true; label: string };

/** Resolved `work_queue` settings: every default filled in. */
export interface WorkQueueSettings {
  concurrency: number;
  pending_limit: number;
  retry: RetrySettings;
  mode: SchedulingModeSetting;
  /** Weights of priorities 1..5. */
  class_weights: [number, number, number, number, number];
  /** Fairness key → weight; always contains `""` with weight 1. */
  accounting_weights: Record<string, number>;
  /** Pool name → settings; always contains `default`. */
  pools: Record<string, PoolSettings>;
  issues: IssueSettings;
}

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
export const DEFAULT_POOL = 'default';

export function defaultWorkQueueSettings(): WorkQueueSettings {
  const retry = { max_attempts: DEFAULT_RETRY.max_attempts, backoff_seconds: DEFAULT_RETRY.backoff_ms / 1000 };
  return {
    concurrency: DEFAULT_POOL_LIMIT,
    pending_limit: CONTRACT_LIMITS.pending_nodes,
    retry,
    mode: DEFAULT_MODE,
    class_weights: [...DEFAULT_CLASS_WEIGHTS],
    accounting_weights: { '': 1 },
    pools: { [DEFAULT_POOL]: { concurrency: 16, retry: { ...retry } } },
    issues: { enabled: false },
  };
}

// ------------------------------------------------------------------ validation helpers

function invalid(path: string, message: string): never {
  throw new ProtocolError('settings_invalid', `${path}: ${message}`, { path });
}

/** `a.b` for identifier-like names, `a["x y"]` otherwise. */
function member(path: string, name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
}

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

function object(value: unknown, path: string): Record<string, unknown> {
  if (value === null) invalid(path, 'null is not allowed; omit the property to use its default');
  if (!isObject(value)) invalid(path, `expected an object, found ${describe(value)}`);
  return value;
}

/** Rejects unknown properties (closed objects). */
function closed(value: Record<string, unknown>, path: string, allowed: readonly string[], hint?: (name: string) => string | undefined): void {
  for (const name of Object.keys(value)) {
    if (!allowed.includes(name)) {
      invalid(member(path, name), `unknown property${hint?.(name) ?? ''} (allowed: ${allowed.join(', ')})`);
    }
  }
}

/** Own property value, or undefined when absent (a present null is returned as null). */
function field(value: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(value, name) ? value[name] : undefined;
}

const INTEGER_TEXT = /^-?(?:0|[1-9][0-9]*)$/;

/** An integer in [min, max]; accepts plain numbers and lossless-json numbers (exact source text). */
function integer(value: unknown, path: string, [min, max]: readonly [number, number]): number {
  if (value === null) invalid(path, 'null is not allowed; omit the property to use its default');
  let n: number;
  if (isLosslessNumber(value)) {
    if (!INTEGER_TEXT.test(value.value)) invalid(path, `expected an integer, found the number ${value.value}`);
    n = Number(value.value);
  } else if (typeof value === 'number') {
    if (!Number.isInteger(value)) invalid(path, `expected an integer, found the number ${value}`);
    n = value;
  } else {
    invalid(path, `expected an integer, found ${describe(value)}`);
  }
  if (!Number.isSafeInteger(n) || n < min || n > max) invalid(path, `must be an integer in ${min}..${max}`);
  return n;
}

function string(value: unknown, path: string): string {
  if (value === null) invalid(path, 'null is not allowed; omit the property to use its default');
  if (typeof value !== 'string') invalid(path, `expected a string, found ${describe(value)}`);
  if (!isWellFormedUnicode(value)) invalid(path, 'contains an unpaired surrogate');
  return value;
}

function retry(value: unknown, path: string, inherited: RetrySettings): RetrySettings {
  const o = object(value, path);
  closed(o, path, ['max_attempts', 'backoff_seconds']);
  const maxAttempts = field(o, 'max_attempts');
  const backoff = field(o, 'backoff_seconds');
  return {
    max_attempts: maxAttempts === undefined ? inherited.max_attempts : integer(maxAttempts, `${path}.max_attempts`, SETTINGS_BOUNDS.max_attempts),
    backoff_seconds: backoff === undefined ? inherited.backoff_seconds : integer(backoff, `${path}.backoff_seconds`, SETTINGS_BOUNDS.backoff_seconds),
  };
}

function classWeights(value: unknown, path: string): WorkQueueSettings['class_weights'] {
  if (value === null) invalid(path, 'null is not allowed; omit the property to use its default');
  if (!Array.isArray(value)) invalid(path, `expected an array of five integer weights, found ${describe(value)}`);
  if (value.length !== 5) invalid(path, `expected exactly five class weights (priorities 1-5), found ${value.length}`);
  return value.map((w, i) => integer(w, `${path}[${i}]`, SETTINGS_BOUNDS.weight)) as WorkQueueSettings['class_weights'];
}

function accountingWeights(value: unknown, path: string): Record<string, number> {
  const o = object(value, path);
  const keys = Object.keys(o);
  const count = keys.length + (Object.hasOwn(o, '') ? 0 : 1);
  if (count > SETTINGS_BOUNDS.accounting_keys) {
    invalid(path, `at most ${SETTINGS_BOUNDS.accounting_keys} fairness keys including the empty key; found ${count}`);
  }
  const weights: Record<string, number> = ownObject([['', 1]]);
  for (const key of keys) {
    const at = member(path, key);
    if (!isWellFormedUnicode(key)) invalid(at, 'fairness key contains an unpaired surrogate');
    if (utf8ByteLength(key) > SETTINGS_BOUNDS.key_bytes) invalid(at, `fairness key exceeds ${SETTINGS_BOUNDS.key_bytes} UTF-8 bytes`);
    const w = integer(o[key], at, SETTINGS_BOUNDS.weight);
    if (key === '' && w !== 1) invalid(at, 'the default (empty) fairness key retains weight 1');
    defineOwn(weights, key, w);
  }
  return weights;
}

function pools(value: unknown, path: string, global: { concurrency: number; retry: RetrySettings }): Record<string, PoolSettings> {
  const o = object(value, path);
  const names = Object.keys(o);
  if (names.length > SETTINGS_BOUNDS.pools) invalid(path, `at most ${SETTINGS_BOUNDS.pools} pools; found ${names.length}`);
  const result: Record<string, PoolSettings> = ownObject([[DEFAULT_POOL, { concurrency: global.concurrency, retry: { ...global.retry } }]]);
  for (const name of names) {
    const at = member(path, name);
    if (!isIdentity(name)) invalid(at, 'pool name must be 1..256 UTF-8 bytes without control characters');
    const p = object(o[name], at);
    closed(p, at, ['concurrency', 'retry', 'per_account_limit']);
    const concurrency = field(p, 'concurrency');
    const poolRetry = field(p, 'retry');
    const perAccount = field(p, 'per_account_limit');
    const settings: PoolSettings = {
      concurrency: concurrency === undefined ? global.concurrency : integer(concurrency, `${at}.concurrency`, SETTINGS_BOUNDS.concurrency),
      retry: poolRetry === undefined ? { ...global.retry } : retry(poolRetry, `${at}.retry`, global.retry),
    };
    if (perAccount !== undefined) settings.per_account_limit = integer(perAccount, `${at}.per_account_limit`, SETTINGS_BOUNDS.per_account_limit);
    defineOwn(result, name, settings);
  }
  return result;
}

/**
 * `issues` (operator reference "Backing Issues"): `true` or `{}` enable projection with the
 * `work` prefix, `false` disables it, `{"label": "..."}` overrides the prefix. The prefix is a
 * nonblank literal; each run of whitespace becomes one hyphen (leading/trailing whitespace is
 * dropped first), and the normalized prefix is at most 33 UTF-8 bytes so that
 * `<prefix>:<longest status>` fits GitHub's 50-character label limit. ASCII control
 * characters and `${{ }}` expressions are rejected.
 */
function issues(value: unknown, path: string): IssueSettings {
  if (value === null) invalid(path, 'null is not allowed; use false to disable Issue projection');
  if (value === true) return { enabled: true, label: DEFAULT_ISSUE_LABEL };
  if (value === false) return { enabled: false };
  if (!isObject(value)) invalid(path, `expected true, false or {"label": "..."}, found ${describe(value)}`);
  closed(value, path, ['label']);
  const raw = field(value, 'label');
  if (raw === undefined) return { enabled: true, label: DEFAULT_ISSUE_LABEL };
  return { enabled: true, label: normalizeIssueLabel(string(raw, `${path}.label`), `${path}.label`) };
}

/** The normalized tracking/status label prefix, or a `settings_invalid` error naming `path`. */
export function normalizeIssueLabel(given: string, path = 'work_queue.issues.label'): string {
  if (given.trim() === '') invalid(path, 'the label prefix must not be blank');
  if (given.includes('${{')) invalid(path, 'the label prefix must be a literal, not an expression');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000e-\u001f\u007f]/.test(given)) invalid(path, 'the label prefix must not contain control characters');
  const label = given.trim().replace(/\s+/gu, '-');
  if (utf8ByteLength(label) > SETTINGS_BOUNDS.label_bytes) {
    invalid(path, `the label prefix is at most ${SETTINGS_BOUNDS.label_bytes} UTF-8 bytes after whitespace becomes hyphens (${JSON.stringify(label)} has ${utf8ByteLength(label)})`);
  }
  return label;
}

const TOP_LEVEL = ['concurrency', 'pending_limit', 'retry', 'mode', 'class_weights', 'accounting_weights', 'pools', 'issues'] as const;

/**
 * Validates and resolves a `work_queue` value. `undefined` (missing section)
 * and `{}` give the defaults. Accepts plain JSON values and lossless-json
 * parse results (whose numbers keep their source text, so `16.0` is not an
 * integer). Throws `ProtocolError('settings_invalid', …, { path })`.
 */
export function parseWorkQueueSettings(json: unknown, path = 'work_queue'): WorkQueueSettings {
  const settings = defaultWorkQueueSettings();
  if (json === undefined) return settings;
  const o = object(json, path);
  closed(o, path, TOP_LEVEL, (name) =>
    name === 'work_queue' ? '; pass the work_queue object itself, not the whole aw.json' : undefined);

  const concurrency = field(o, 'concurrency');
  if (concurrency !== undefined) settings.concurrency = integer(concurrency, `${path}.concurrency`, SETTINGS_BOUNDS.concurrency);
  const pending = field(o, 'pending_limit');
  if (pending !== undefined) settings.pending_limit = integer(pending, `${path}.pending_limit`, SETTINGS_BOUNDS.pending_limit);
  const retryValue = field(o, 'retry');
  if (retryValue !== undefined) settings.retry = retry(retryValue, `${path}.retry`, settings.retry);
  const mode = field(o, 'mode');
  if (mode !== undefined) {
    const m = string(mode, `${path}.mode`);
    if (m !== 'weighted-priority' && m !== 'strict-priority') invalid(`${path}.mode`, 'expected "weighted-priority" or "strict-priority"');
    settings.mode = m;
  }
  const classes = field(o, 'class_weights');
  if (classes !== undefined) settings.class_weights = classWeights(classes, `${path}.class_weights`);
  const accounts = field(o, 'accounting_weights');
  if (accounts !== undefined) settings.accounting_weights = accountingWeights(accounts, `${path}.accounting_weights`);
  const poolValue = field(o, 'pools');
  settings.pools = poolValue === undefined
    ? { [DEFAULT_POOL]: { concurrency: settings.concurrency, retry: { ...settings.retry } } }
    : pools(poolValue, `${path}.pools`, settings);
  const issueValue = field(o, 'issues');
  if (issueValue !== undefined) settings.issues = issues(issueValue, `${path}.issues`);
  return settings;
}

/** Parses JSON text for settings: duplicate keys are errors, numbers keep their source text. */
export function parseSettingsJson(text: string, path: string): unknown {
  try {
    return parseLossless(text);
  } catch (e) {
    return invalid(path, `not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function decode(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return invalid(path, 'not valid UTF-8');
  }
}

/**
 * Settings from the bytes of `.github/workflows/aw.json` (null = the file is
 * missing). Other top-level aw.json sections are not ours and are ignored.
 */
export function readAwJsonSettings(bytes: Uint8Array | null): WorkQueueSettings {
  if (bytes === null) return defaultWorkQueueSettings();
  const root = parseSettingsJson(decode(bytes, 'aw.json'), 'aw.json');
  if (!isObject(root)) invalid('aw.json', `expected a JSON object, found ${describe(root)}`);
  return parseWorkQueueSettings(field(root, 'work_queue'));
}

/** Settings from the bytes of a file holding one `work_queue` object (e.g. `fairway simulate --settings`). */
export function readWorkQueueSettingsFile(bytes: Uint8Array): WorkQueueSettings {
  return parseWorkQueueSettings(parseSettingsJson(decode(bytes, 'work_queue'), 'work_queue'));
}

// ------------------------------------------------------------------ policy

interface PolicyBase {
  /** Queue repository `owner/name` (allowed repository and default effect scope). */
  repository: string;
  /** Worker principal of the generated profile (decimal GitHub actor id). */
  principal: string;
}

/**
 * Where the worker profiles come from. There is no default route: a caller names the verified
 * immutable revision (`profile.ref`, e.g. a test or benchmark seeding a known commit) or passes
 * the verified profiles (lib/config/worker-routes.ts). A placeholder ref (all zeros) is refused.
 */
export type PolicyContext = PolicyBase & (
  | {
      /** The generated `default` worker profile's AW route facts; `ref` is the verified revision. */
      profile: Partial<WorkerProfile> & Pick<WorkerProfile, 'ref'>;
      profiles?: undefined;
      defaultProfile?: undefined;
    }
  | {
      /** Complete approved worker profiles for every pool. */
      profiles: Record<string, WorkerProfile>;
      /** Default profile name (default: the first name). */
      defaultProfile?: string;
      profile?: undefined;
    }
);

function generatedProfile(ctx: PolicyBase, profile: Partial<WorkerProfile> & Pick<WorkerProfile, 'ref'>): WorkerProfile {
  return {
    credential_scope: 'repository',
    effect_scope: ctx.repository,
    max_claims: DEFAULT_MAX_CLAIMS,
    principal: ctx.principal,
    share_keys: false,
    trust_domain: 'default',
    workflow: '.github/workflows/worker.lock.yml',
    ...profile,
  };
}

/** The contract `limits` the settings table does not expose (pending_nodes comes from `pending_limit`). */
function contractLimits(): Omit<ReturnType<typeof defaultLimits>, 'pending_nodes'> {
  const { pending_nodes: _fromSettings, ...limits } = defaultLimits();
  return limits;
}

function schemaPath(issuePath: readonly PropertyKey[]): string {
  return ['policy', ...issuePath.map(String)].join('.');
}

/**
 * The version-3 QueuePolicy for resolved settings (singleton assignments,
 * contract defaults for everything the table does not set). Throws
 * `ProtocolError('policy_invalid', …, { path })` if the result does not pass
 * `QueuePolicySchema` (e.g. a malformed repository or principal in `ctx`).
 */
export function policyFromSettings(settings: WorkQueueSettings, ctx: PolicyContext): JsonObject {
  const profiles = ctx.profiles ?? { default: generatedProfile(ctx, ctx.profile) };
  for (const [name, p] of Object.entries(profiles)) {
    if (isPlaceholderRef(p.ref)) {
      throw new ProtocolError('worker_route_unavailable', `worker profile ${name} has the placeholder ref ${p.ref}, not a verified immutable revision`, {}, { worker_profile: name });
    }
  }
  const profileNames = Object.keys(profiles);
  const defaultName = ctx.defaultProfile ?? profileNames[0];
  if (defaultName === undefined || !Object.hasOwn(profiles, defaultName)) {
    throw new ProtocolError('policy_invalid', `default profile ${JSON.stringify(defaultName)} is not among the profiles`, { path: 'policy.pools' });
  }
  const poolEntries: Record<string, JsonObject> = ownObject<JsonObject>([]);
  for (const [name, pool] of Object.entries(settings.pools)) {
    const entry: JsonObject = {
      allowed_repositories: [ctx.repository],
      default_profile: defaultName,
      logical_limit: pool.concurrency,
      native_limit: pool.concurrency,
      max_observation_age_ms: DEFAULT_MAX_OBSERVATION_AGE_MS,
      profiles: structuredClone(profiles) as unknown as JsonObject,
      reconciliation: { ...DEFAULT_RECONCILIATION },
      retry: { backoff_ms: pool.retry.backoff_seconds * 1000, max_attempts: pool.retry.max_attempts },
    };
    if (pool.per_account_limit !== undefined) entry.per_account_limit = pool.per_account_limit;
    defineOwn(poolEntries, name, entry);
  }
  const policy: JsonObject = {
    mode: settings.mode,
    class_weights: [...settings.class_weights],
    accounting_weights: { ...settings.accounting_weights },
    producers: {},
    pools: poolEntries,
    limits: { ...contractLimits(), pending_nodes: settings.pending_limit },
  };
  const parsed = QueuePolicySchema.safeParse(policy);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = schemaPath(issue.path);
    throw new ProtocolError('policy_invalid', `${path}: ${issue.message}`, { path });
  }
  return policy;
}
