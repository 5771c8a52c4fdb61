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
import { parse as parseLossless } from 'lossless-json';
import { ProtocolError } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { QueuePolicySchema, type WorkerProfile } from '../../engine/schema/index.ts';
import { defineOwn, ownObject } from '../../engine/schema/record.ts';
import {
  CONTRACT_LIMITS, DEFAULT_CLASS_WEIGHTS, DEFAULT_MAX_CLAIMS, DEFAULT_MAX_OBSERVATION_AGE_MS, DEFAULT_MODE, DEFAULT_POOL_LIMIT,
  DEFAULT_RECONCILIATION, DEFAULT_RETRY, defaultLimits,
} from '../../engine/schema/defaults.ts';
import { isPlaceholderRef } from './placeholder.ts';
import { AwJsonSchema, DEFAULT_ISSUE_LABEL, settingsProblem, WorkQueueSettingsSchema, type GivenSettings } from './settings-schema.ts';

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
    pools: { [DEFAULT_POOL]: { concurrency: DEFAULT_POOL_LIMIT, retry: { ...retry } } },
    issues: { enabled: false },
  };
}

function invalid(path: string, message: string): never {
  throw new ProtocolError('settings_invalid', `${path}: ${message}`, { path });
}

/** Given retry fields over the inherited ones, field by field. */
function retryOver(given: { max_attempts?: number; backoff_seconds?: number } | undefined, inherited: RetrySettings): RetrySettings {
  return { max_attempts: given?.max_attempts ?? inherited.max_attempts, backoff_seconds: given?.backoff_seconds ?? inherited.backoff_seconds };
}

/** Every default filled in: pools inherit the global concurrency and retry; `default` always exists, the empty key always weighs 1. */
function resolve(given: GivenSettings): WorkQueueSettings {
  const settings = defaultWorkQueueSettings();
  if (given.concurrency !== undefined) settings.concurrency = given.concurrency;
  if (given.pending_limit !== undefined) settings.pending_limit = given.pending_limit;
  settings.retry = retryOver(given.retry, settings.retry);
  if (given.mode !== undefined) settings.mode = given.mode;
  if (given.class_weights !== undefined) settings.class_weights = given.class_weights as WorkQueueSettings['class_weights'];
  if (given.accounting_weights !== undefined) settings.accounting_weights = ownObject([['', 1], ...Object.entries(given.accounting_weights)]);
  const global = { concurrency: settings.concurrency, retry: settings.retry };
  const pools: Record<string, PoolSettings> = ownObject([[DEFAULT_POOL, { concurrency: global.concurrency, retry: { ...global.retry } }]]);
  for (const [name, pool] of Object.entries(given.pools ?? {})) {
    const entry: PoolSettings = { concurrency: pool.concurrency ?? global.concurrency, retry: retryOver(pool.retry, global.retry) };
    if (pool.per_account_limit !== undefined) entry.per_account_limit = pool.per_account_limit;
    defineOwn(pools, name, entry);
  }
  settings.pools = given.pools === undefined ? { [DEFAULT_POOL]: pools[DEFAULT_POOL]! } : pools;
  if (given.issues !== undefined) {
    settings.issues = given.issues === false ? { enabled: false } : { enabled: true, label: given.issues === true ? DEFAULT_ISSUE_LABEL : (given.issues.label ?? DEFAULT_ISSUE_LABEL) };
  }
  return settings;
}

/**
 * Validates and resolves a `work_queue` value (lib/config/settings-schema.ts). `undefined`
 * (missing section) and `{}` give the defaults. Accepts plain JSON values and lossless-json
 * parse results (whose numbers keep their source text, so `16.0` is not an integer). Throws
 * `ProtocolError('settings_invalid', …, { path })` naming the first problem's property.
 */
export function parseWorkQueueSettings(json: unknown, path = 'work_queue'): WorkQueueSettings {
  if (json === undefined) return defaultWorkQueueSettings();
  const parsed = WorkQueueSettingsSchema.safeParse(json);
  if (!parsed.success) {
    const problem = settingsProblem(parsed.error, path);
    return invalid(problem.path, problem.message);
  }
  return resolve(parsed.data);
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
  const root = AwJsonSchema.safeParse(parseSettingsJson(decode(bytes, 'aw.json'), 'aw.json'));
  if (!root.success) return invalid('aw.json', settingsProblem(root.error, 'aw.json').message);
  return parseWorkQueueSettings(root.data.work_queue);
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
