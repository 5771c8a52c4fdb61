/**
 * The demo queue's Policy: one pool, two approved worker profiles (a singleton
 * worker and a setup-heavy shared worker that may carry 3 Claims across keys),
 * Platform and Security registered with equal weights (spec section 0).
 */
import type { JsonObject } from '../../engine/json.ts';
import { DEFAULT_CLASS_WEIGHTS, DEFAULT_MODE, DEFAULT_RECONCILIATION, DEFAULT_RETRY, defaultLimits } from '../../engine/schema/defaults.ts';

export const DEMO_REPOSITORY = 'acme/fairway-demo';
export const DEMO_PRINCIPAL = '1001';
export const DEMO_EPOCH = 'demo-day-1';
export const DESIGN_REPOSITORY = 'acme/sdk-design';
export const UPSTREAM_REPOSITORY = 'acme/upstream-sdk';
/** Retry backoff of the demo pool: a setup-heavy worker is not retried for two hours. */
export const DEMO_BACKOFF_MS = 2 * 60 * 60 * 1000;

function profile(maxClaims: number, shareKeys: boolean, workflow: string): JsonObject {
  return {
    credential_scope: 'repository',
    effect_scope: DEMO_REPOSITORY,
    max_claims: maxClaims,
    principal: DEMO_PRINCIPAL,
    ref: 'a'.repeat(40),
    share_keys: shareKeys,
    trust_domain: 'default',
    workflow,
  };
}

export function demoPolicy(): JsonObject {
  return {
    mode: DEFAULT_MODE,
    class_weights: [...DEFAULT_CLASS_WEIGHTS],
    accounting_weights: { '': 1, platform: 1, security: 1 },
    limits: defaultLimits(),
    pools: {
      default: {
        allowed_repositories: [DEMO_REPOSITORY, DESIGN_REPOSITORY, UPSTREAM_REPOSITORY],
        default_profile: 'worker',
        logical_limit: 64,
        native_limit: 64,
        max_observation_age_ms: 8 * 60 * 60 * 1000,
        profiles: {
          worker: profile(1, false, '.github/workflows/worker.lock.yml'),
          'sdk-shared': profile(3, true, '.github/workflows/sdk-worker.lock.yml'),
        },
        reconciliation: { ...DEFAULT_RECONCILIATION },
        retry: { backoff_ms: DEMO_BACKOFF_MS, max_attempts: DEFAULT_RETRY.max_attempts },
      },
    },
    producers: {},
  };
}
