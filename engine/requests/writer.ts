/**
 * An in-memory ledger writer: builds each request's candidate commit on the
 * current tip, validates it by replaying it, and keeps the canonical lines.
 * Used by generators (demo queue, benchmarks, tests); the Git publisher adds
 * compare-and-swap on top of the same build-and-validate step.
 */
import { candidateCommitId } from '../identity/index.ts';
import type { JsonObject } from '../json.ts';
import { createState, type ReplayState } from '../state/state.ts';
import { Projection } from '../replay/projection.ts';
import type { Actor, QueueCommit } from '../schema/index.ts';
import { DEFAULT_CLASS_WEIGHTS, DEFAULT_MAX_CLAIMS, DEFAULT_MAX_OBSERVATION_AGE_MS, DEFAULT_MODE, DEFAULT_POOL_LIMIT, DEFAULT_RECONCILIATION, DEFAULT_RETRY, defaultLimits } from '../schema/defaults.ts';
import { buildCommit, commitOn } from './build.ts';
import { dispatchNextRequest, type BuiltRequest, type DispatchNextInput } from './operations.ts';

export class LedgerWriter {
  readonly state: ReplayState = createState();
  /** The ledger written so far, through the front door (its records; commit texts are in `lines`). */
  readonly projection = new Projection(this.state);
  readonly lines: string[] = [];

  /** Publishes one built request; returns the accepted commit. */
  publish(id: string, actor: Actor, at: number, built: BuiltRequest): QueueCommit {
    const commit = buildCommit(this.state, { id, kind: built.kind, parameters: built.parameters, actor, at, operations: built.operations });
    this.lines.push(commitOn(this.state, commit));
    return commit;
  }

  /** Plans and publishes a dispatch_next; returns null (and writes nothing) for a no-grant outcome. */
  dispatchNext(id: string, actor: Actor, at: number, input: DispatchNextInput): { commit: QueueCommit; built: ReturnType<typeof dispatchNextRequest> } | { commit: null; built: ReturnType<typeof dispatchNextRequest> } {
    const built = dispatchNextRequest(this.state, input, { requestId: id, commitId: candidateCommitId(this.state.tip, id) }, at);
    if (built.operations.length === 0) return { commit: null, built };
    return { commit: this.publish(id, actor, at, built), built };
  }

  text(): string {
    return this.lines.join('');
  }
}

/**
 * The stand-in worker revision of generated ledgers (tests, benchmarks, the demo) that never read
 * a repository: a fixed commit-shaped SHA, never the all-zero placeholder (which no Fairway
 * publication installs, lib/config/placeholder.ts).
 */
export const GENERATED_WORKER_REF = 'd'.repeat(40);

export function defaultPolicy(overrides: { repository: string; principal: string; weights?: Record<string, number>; logicalLimit?: number; nativeLimit?: number; maxClaims?: number; shareKeys?: boolean; mode?: string; ref?: string }): JsonObject {
  const weights = { '': 1, ...(overrides.weights ?? {}) };
  return {
    mode: overrides.mode ?? DEFAULT_MODE,
    class_weights: [...DEFAULT_CLASS_WEIGHTS],
    accounting_weights: weights,
    limits: defaultLimits(),
    pools: {
      default: {
        allowed_repositories: [overrides.repository],
        default_profile: 'default',
        logical_limit: overrides.logicalLimit ?? DEFAULT_POOL_LIMIT,
        native_limit: overrides.nativeLimit ?? DEFAULT_POOL_LIMIT,
        max_observation_age_ms: DEFAULT_MAX_OBSERVATION_AGE_MS,
        profiles: {
          default: {
            credential_scope: 'repository', effect_scope: overrides.repository, max_claims: overrides.maxClaims ?? DEFAULT_MAX_CLAIMS,
            principal: overrides.principal, ref: overrides.ref ?? GENERATED_WORKER_REF, share_keys: overrides.shareKeys ?? false,
            trust_domain: 'default', workflow: '.github/workflows/worker.lock.yml',
          },
        },
        reconciliation: { ...DEFAULT_RECONCILIATION },
        retry: { ...DEFAULT_RETRY },
      },
    },
    producers: {},
  };
}
