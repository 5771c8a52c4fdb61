import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { isProtocolError } from '../../engine/errors.ts';
import type { JsonValue } from '../../engine/json.ts';
import { bootstrapRequest } from '../../engine/requests/operations.ts';
import { LedgerWriter, defaultPolicy } from '../../engine/requests/writer.ts';
import { QueuePolicySchema } from '../../engine/schema/index.ts';
import {
  defaultWorkQueueSettings,
  parseWorkQueueSettings,
  policyFromSettings,
  readAwJsonSettings,
  readWorkQueueSettingsFile,
  type WorkQueueSettings,
} from './aw.ts';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const REF = '1'.repeat(40);
const ctx = { repository: 'owner/repo', principal: '1001', profile: { ref: REF } };

/** The error of `run` as `{code, path}` (or 'accepted'). */
function failure(run: () => unknown): { code: string; path: string | undefined; message: string } | 'accepted' {
  try {
    run();
  } catch (e) {
    if (isProtocolError(e)) return { code: e.code, path: e.path, message: e.message };
    throw e;
  }
  return 'accepted';
}

function settingsError(workQueue: string): { code: string; path: string | undefined; message: string } | 'accepted' {
  return failure(() => readAwJsonSettings(bytes(`{"work_queue": ${workQueue}}`)));
}

function expectPath(workQueue: string, path: string): void {
  const f = settingsError(workQueue);
  expect(f).not.toBe('accepted');
  expect(f).toMatchObject({ code: 'settings_invalid', path });
}

describe('aw.json work_queue settings: defaults', () => {
  const defaults: WorkQueueSettings = {
    concurrency: 16,
    pending_limit: 4096,
    retry: { max_attempts: 3, backoff_seconds: 30 },
    mode: 'weighted-priority',
    class_weights: [8, 4, 2, 1, 1],
    accounting_weights: { '': 1 },
    pools: { default: { concurrency: 16, retry: { max_attempts: 3, backoff_seconds: 30 } } },
    issues: { enabled: false },
  };

  it('the table defaults', () => {
    expect(defaultWorkQueueSettings()).toEqual(defaults);
  });

  it('missing file, missing section, {} and an empty work_queue all resolve to the defaults', () => {
    expect(readAwJsonSettings(null)).toEqual(defaults);
    expect(readAwJsonSettings(bytes('{}'))).toEqual(defaults);
    expect(readAwJsonSettings(bytes('{"work_queue": {}}'))).toEqual(defaults);
    expect(parseWorkQueueSettings(undefined)).toEqual(defaults);
    expect(parseWorkQueueSettings({})).toEqual(defaults);
  });

  it('other aw.json sections are not ours and are ignored', () => {
    expect(readAwJsonSettings(bytes('{"mcp": {"x": 1}, "work_queue": {"mode": "strict-priority"}}')).mode).toBe('strict-priority');
  });

  it('nested {} use defaults: retry, accounting_weights, pools, issues object', () => {
    const s = readAwJsonSettings(bytes('{"work_queue": {"retry": {}, "accounting_weights": {}, "pools": {}, "issues": {}}}'));
    expect(s.retry).toEqual(defaults.retry);
    expect(s.accounting_weights).toEqual({ '': 1 });
    expect(s.pools).toEqual(defaults.pools);
    expect(s.issues).toEqual({ enabled: true, label: 'work' });
  });
});

describe('aw.json work_queue settings: accepted values', () => {
  it('every field at its bounds', () => {
    const s = readAwJsonSettings(bytes(JSON.stringify({
      work_queue: {
        concurrency: 4096,
        pending_limit: 1,
        retry: { max_attempts: 16, backoff_seconds: 3600 },
        mode: 'strict-priority',
        class_weights: [1000, 1, 1, 1, 1000],
        accounting_weights: { '': 1, 'team-a': 1000, b: 1 },
        pools: { gpu: { concurrency: 1, per_account_limit: 4096, retry: { max_attempts: 1 } } },
        issues: { label: 'cookie' },
      },
    })));
    expect(s.concurrency).toBe(4096);
    expect(s.pending_limit).toBe(1);
    expect(s.retry).toEqual({ max_attempts: 16, backoff_seconds: 3600 });
    expect(s.mode).toBe('strict-priority');
    expect(s.class_weights).toEqual([1000, 1, 1, 1, 1000]);
    expect(s.accounting_weights).toEqual({ '': 1, 'team-a': 1000, b: 1 });
    expect(s.issues).toEqual({ enabled: true, label: 'cookie' });
    // Pools inherit the global concurrency / retry field by field; default always exists.
    expect(s.pools.default).toEqual({ concurrency: 4096, retry: { max_attempts: 16, backoff_seconds: 3600 } });
    expect(s.pools.gpu).toEqual({ concurrency: 1, per_account_limit: 4096, retry: { max_attempts: 1, backoff_seconds: 3600 } });
  });

  it('a pools entry named default configures the default pool', () => {
    const s = parseWorkQueueSettings({ concurrency: 8, pools: { default: { per_account_limit: 2 } } });
    expect(s.pools).toEqual({ default: { concurrency: 8, per_account_limit: 2, retry: { max_attempts: 3, backoff_seconds: 30 } } });
  });

  it('issues: true enables the default label, false disables', () => {
    expect(parseWorkQueueSettings({ issues: true }).issues).toEqual({ enabled: true, label: 'work' });
    expect(parseWorkQueueSettings({ issues: false }).issues).toEqual({ enabled: false });
  });

  it('the empty key may be given with weight 1; 1,024 keys including it are accepted', () => {
    const keys: Record<string, number> = { '': 1 };
    for (let i = 0; i < 1023; i++) keys[`k${i}`] = 2;
    expect(Object.keys(parseWorkQueueSettings({ accounting_weights: keys }).accounting_weights)).toHaveLength(1024);
  });

  it('a 128-byte fairness key and a 33-byte label are accepted', () => {
    expect(parseWorkQueueSettings({ accounting_weights: { ['é'.repeat(64)]: 2 } }).accounting_weights['é'.repeat(64)]).toBe(2);
    expect(parseWorkQueueSettings({ issues: { label: 'x'.repeat(33) } }).issues).toEqual({ enabled: true, label: 'x'.repeat(33) });
  });

  it('a settings file holding only the work_queue object (simulate --settings)', () => {
    expect(readWorkQueueSettingsFile(bytes('{"class_weights": [5, 3, 2, 1, 1]}')).class_weights).toEqual([5, 3, 2, 1, 1]);
  });
});

describe('aw.json work_queue settings: property-specific errors', () => {
  it('unknown fields, at every level', () => {
    expectPath('{"concurency": 4}', 'work_queue.concurency');
    expectPath('{"retry": {"max_attempt": 2}}', 'work_queue.retry.max_attempt');
    expectPath('{"pools": {"gpu": {"limit": 2}}}', 'work_queue.pools.gpu.limit');
    expectPath('{"pools": {"gpu": {"retry": {"backoff_ms": 2}}}}', 'work_queue.pools.gpu.retry.backoff_ms');
    expectPath('{"issues": {"label": "x", "color": "red"}}', 'work_queue.issues.color');
    // Producer allowlists, worker principals and credentials do not belong in work_queue.
    expectPath('{"producers": {}}', 'work_queue.producers');
  });

  it('passing the whole aw.json where the work_queue object is expected names the mistake', () => {
    const f = failure(() => readWorkQueueSettingsFile(bytes('{"work_queue": {}}')));
    expect(f).toMatchObject({ code: 'settings_invalid', path: 'work_queue.work_queue' });
    expect((f as { message: string }).message).toContain('not the whole aw.json');
  });

  it('nulls are errors, never defaults', () => {
    expectPath('null', 'work_queue');
    for (const name of ['concurrency', 'pending_limit', 'retry', 'mode', 'class_weights', 'accounting_weights', 'pools', 'issues']) {
      expectPath(`{"${name}": null}`, `work_queue.${name}`);
    }
    expectPath('{"retry": {"max_attempts": null}}', 'work_queue.retry.max_attempts');
    expectPath('{"class_weights": [8, null, 2, 1, 1]}', 'work_queue.class_weights[1]');
    expectPath('{"accounting_weights": {"a": null}}', 'work_queue.accounting_weights.a');
    expectPath('{"pools": {"gpu": null}}', 'work_queue.pools.gpu');
    expectPath('{"issues": {"label": null}}', 'work_queue.issues.label');
  });

  it('wrong types', () => {
    expectPath('[]', 'work_queue');
    expectPath('{"concurrency": "16"}', 'work_queue.concurrency');
    expectPath('{"concurrency": true}', 'work_queue.concurrency');
    expectPath('{"concurrency": 16.5}', 'work_queue.concurrency');
    expectPath('{"concurrency": 16.0}', 'work_queue.concurrency');
    expectPath('{"pending_limit": 1e3}', 'work_queue.pending_limit');
    expectPath('{"retry": 3}', 'work_queue.retry');
    expectPath('{"mode": 1}', 'work_queue.mode');
    expectPath('{"class_weights": {"1": 8}}', 'work_queue.class_weights');
    expectPath('{"class_weights": [8, "4", 2, 1, 1]}', 'work_queue.class_weights[1]');
    expectPath('{"accounting_weights": [1]}', 'work_queue.accounting_weights');
    expectPath('{"accounting_weights": {"team a": "2"}}', 'work_queue.accounting_weights["team a"]');
    expectPath('{"pools": []}', 'work_queue.pools');
    expectPath('{"pools": {"gpu": 4}}', 'work_queue.pools.gpu');
    expectPath('{"issues": "yes"}', 'work_queue.issues');
    expectPath('{"issues": {"label": 7}}', 'work_queue.issues.label');
  });

  it('out-of-range values', () => {
    expectPath('{"concurrency": 0}', 'work_queue.concurrency');
    expectPath('{"concurrency": 4097}', 'work_queue.concurrency');
    expectPath('{"pending_limit": 0}', 'work_queue.pending_limit');
    expectPath('{"pending_limit": 4097}', 'work_queue.pending_limit');
    expectPath('{"retry": {"max_attempts": 0}}', 'work_queue.retry.max_attempts');
    expectPath('{"retry": {"max_attempts": 17}}', 'work_queue.retry.max_attempts');
    expectPath('{"retry": {"backoff_seconds": 0}}', 'work_queue.retry.backoff_seconds');
    expectPath('{"retry": {"backoff_seconds": 3601}}', 'work_queue.retry.backoff_seconds');
    expectPath('{"mode": "fifo"}', 'work_queue.mode');
    expectPath('{"class_weights": [8, 4, 2, 1]}', 'work_queue.class_weights');
    expectPath('{"class_weights": [8, 4, 2, 1, 1, 1]}', 'work_queue.class_weights');
    expectPath('{"class_weights": [8, 4, 0, 1, 1]}', 'work_queue.class_weights[2]');
    expectPath('{"class_weights": [8, 4, 2, 1, 1001]}', 'work_queue.class_weights[4]');
    expectPath('{"class_weights": [8, 4, -2, 1, 1]}', 'work_queue.class_weights[2]');
    expectPath('{"accounting_weights": {"a": 0}}', 'work_queue.accounting_weights.a');
    expectPath('{"accounting_weights": {"a": 1001}}', 'work_queue.accounting_weights.a');
    expectPath('{"accounting_weights": {"a": 9007199254740993}}', 'work_queue.accounting_weights.a');
    expectPath('{"accounting_weights": {"": 2}}', 'work_queue.accounting_weights[""]');
    expectPath(`{"accounting_weights": {"${'é'.repeat(65)}": 2}}`, `work_queue.accounting_weights[${JSON.stringify('é'.repeat(65))}]`);
    expectPath('{"pools": {"gpu": {"concurrency": 0}}}', 'work_queue.pools.gpu.concurrency');
    expectPath('{"pools": {"gpu": {"per_account_limit": 0}}}', 'work_queue.pools.gpu.per_account_limit');
    expectPath('{"pools": {"gpu": {"per_account_limit": 4097}}}', 'work_queue.pools.gpu.per_account_limit');
    expectPath('{"pools": {"gpu": {"retry": {"max_attempts": 17}}}}', 'work_queue.pools.gpu.retry.max_attempts');
    expectPath('{"pools": {"g\\u0001": {}}}', 'work_queue.pools["g\\u0001"]');
    expectPath('{"issues": {"label": "   "}}', 'work_queue.issues.label');
    expectPath(`{"issues": {"label": "${'x'.repeat(34)}"}}`, 'work_queue.issues.label');
    expectPath('{"issues": {"label": "${{ github.actor }}"}}', 'work_queue.issues.label');
  });

  it('too many accounting keys (1,025 including the empty key) and too many pools (65)', () => {
    const keys: Record<string, number> = {};
    for (let i = 0; i < 1024; i++) keys[`k${i}`] = 1;
    expect(failure(() => parseWorkQueueSettings({ accounting_weights: keys }))).toMatchObject({ code: 'settings_invalid', path: 'work_queue.accounting_weights' });
    const pools: Record<string, object> = {};
    for (let i = 0; i < 65; i++) pools[`p${i}`] = {};
    expect(failure(() => parseWorkQueueSettings({ pools }))).toMatchObject({ code: 'settings_invalid', path: 'work_queue.pools' });
    delete pools.p64;
    expect(Object.keys(parseWorkQueueSettings({ pools }).pools)).toHaveLength(65); // 64 named + default
  });

  it('malformed files: invalid JSON, duplicate keys, non-object root, invalid UTF-8', () => {
    expect(failure(() => readAwJsonSettings(bytes('{"work_queue": {')))).toMatchObject({ code: 'settings_invalid', path: 'aw.json' });
    expect(failure(() => readAwJsonSettings(bytes('{"work_queue": {"mode": "strict-priority", "mode": "weighted-priority"}}')))).toMatchObject({ code: 'settings_invalid', path: 'aw.json' });
    expect(failure(() => readAwJsonSettings(bytes('[1]')))).toMatchObject({ code: 'settings_invalid', path: 'aw.json' });
    expect(failure(() => readAwJsonSettings(new Uint8Array([0x7b, 0xff, 0x7d])))).toMatchObject({ code: 'settings_invalid', path: 'aw.json' });
  });

  it('error messages name the property and the rule', () => {
    const f = settingsError('{"retry": {"max_attempts": 17}}');
    expect((f as { message: string }).message).toBe('work_queue.retry.max_attempts: must be an integer in 1..16');
  });
});

describe('policyFromSettings', () => {
  it('defaults give the same QueuePolicy as the writer\'s defaultPolicy, valid under QueuePolicySchema', () => {
    const policy = policyFromSettings(readAwJsonSettings(null), ctx);
    expect(QueuePolicySchema.safeParse(policy).success).toBe(true);
    const expected = defaultPolicy(ctx) as { pools: { default: { profiles: { default: { ref: string } } } } };
    expected.pools.default.profiles.default.ref = REF;
    expect(canonicalize(policy)).toBe(canonicalize(expected as unknown as JsonValue));
  });

  it('maps every setting onto the Policy', () => {
    const settings = parseWorkQueueSettings({
      concurrency: 4,
      pending_limit: 100,
      retry: { max_attempts: 5, backoff_seconds: 2 },
      mode: 'strict-priority',
      class_weights: [5, 4, 3, 2, 1],
      accounting_weights: { a: 3 },
      pools: { gpu: { concurrency: 2, per_account_limit: 1 } },
    });
    const policy = policyFromSettings(settings, ctx) as Record<string, unknown>;
    expect(policy.mode).toBe('strict-priority');
    expect(policy.class_weights).toEqual([5, 4, 3, 2, 1]);
    expect(policy.accounting_weights).toEqual({ '': 1, a: 3 });
    expect((policy.limits as Record<string, number>).pending_nodes).toBe(100);
    const pools = policy.pools as Record<string, Record<string, unknown>>;
    expect(Object.keys(pools).sort()).toEqual(['default', 'gpu']);
    expect(pools.default).toMatchObject({ logical_limit: 4, native_limit: 4, retry: { max_attempts: 5, backoff_ms: 2000 } });
    expect(pools.default!.per_account_limit).toBeUndefined();
    expect(pools.gpu).toMatchObject({ logical_limit: 2, native_limit: 2, per_account_limit: 1, retry: { max_attempts: 5, backoff_ms: 2000 } });
    expect(QueuePolicySchema.safeParse(policy).success).toBe(true);
  });

  it('profile overrides and explicit profiles', () => {
    const p = policyFromSettings(defaultWorkQueueSettings(), { ...ctx, profile: { ref: REF, max_claims: 4, share_keys: true } }) as Record<string, unknown>;
    const profile = ((p.pools as Record<string, Record<string, unknown>>).default!.profiles as Record<string, Record<string, unknown>>).default!;
    expect(profile).toMatchObject({ max_claims: 4, share_keys: true, principal: '1001', effect_scope: 'owner/repo' });
    const worker = { ...profile, workflow: '.github/workflows/other.lock.yml' } as never;
    const q = policyFromSettings(defaultWorkQueueSettings(), { repository: ctx.repository, principal: ctx.principal, profiles: { a: worker, b: worker }, defaultProfile: 'b' }) as Record<string, unknown>;
    expect((q.pools as Record<string, Record<string, unknown>>).default!.default_profile).toBe('b');
    expect(failure(() => policyFromSettings(defaultWorkQueueSettings(), { repository: ctx.repository, principal: ctx.principal, profiles: { a: worker }, defaultProfile: 'c' }))).toMatchObject({ code: 'policy_invalid' });
  });

  it('never installs a placeholder route: a profile whose ref is all zeros is worker_route_unavailable', () => {
    const zero = '0'.repeat(40);
    expect(failure(() => policyFromSettings(defaultWorkQueueSettings(), { ...ctx, profile: { ref: zero } }))).toMatchObject({ code: 'worker_route_unavailable' });
    const worker = { credential_scope: 'repository', effect_scope: 'owner/repo', max_claims: 1, principal: '1001', ref: zero, share_keys: false, trust_domain: 'default', workflow: '.github/workflows/w.yml' };
    expect(failure(() => policyFromSettings(defaultWorkQueueSettings(), { repository: ctx.repository, principal: ctx.principal, profiles: { ok: { ...worker, ref: REF }, gpu: worker } }))).toMatchObject({ code: 'worker_route_unavailable' });
  });

  it('a malformed principal or repository fails QueuePolicySchema with policy_invalid and a path', () => {
    const f = failure(() => policyFromSettings(defaultWorkQueueSettings(), { repository: 'owner/repo', principal: 'octocat', profile: { ref: REF } }));
    expect(f).toMatchObject({ code: 'policy_invalid', path: 'policy.pools.default.profiles.default.principal' });
    expect(failure(() => policyFromSettings(defaultWorkQueueSettings(), { repository: '', principal: '1', profile: { ref: REF } }))).toMatchObject({ code: 'policy_invalid' });
  });

  it('the resolved Policy installs as a genesis that replay accepts', () => {
    const settings = parseWorkQueueSettings({ mode: 'strict-priority', accounting_weights: { a: 2 }, pools: { gpu: { per_account_limit: 2 } } });
    const policy = policyFromSettings(settings, ctx);
    const w = new LedgerWriter();
    const producer = { role: 'producer' as const, principal: '1001', repository: 'owner/repo' };
    w.publish('bootstrap', producer, 1000, bootstrapRequest(policy, 'epoch-1', [{ node_key: 'a', payload: {}, fairness_key: 'a', pool: 'gpu' }], { graphId: 'g', at: 1000 }));
    expect(w.state.policy?.epoch).toBe('epoch-1');
    expect(w.state.fairness.mode).toBe('strict-priority');
  });
});
