/**
 * The full authoritative projection as plain JSON (`fairway replay --json`, issue 15 §2):
 * every Work with its state, readiness and reason, every Claim, dispatch group and
 * reservation, delivery barriers, Observations, controls, Policy and the request index.
 * The schema is `fairway.projection/1`, documented in docs/projection-json.md. Work
 * payloads are left out unless asked for (`--with-payloads`): read surfaces print
 * metadata only. Keys are snake_case; Maps become objects, bigints decimal strings.
 */
import type { Projection } from '../engine/replay/index.ts';
import { summarize } from '../engine/replay/index.ts';
import type { WorkRecord } from '../engine/replay/state.ts';
import { commitAt, ownerOf, workReadiness } from './work-facts.ts';

export const PROJECTION_SCHEMA = 'fairway.projection/1';

const snakeKey = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Plain JSON data: Maps → objects (own keys, even `__proto__`), Sets → arrays, bigints → strings, camelCase → snake_case. */
export function plain(value: unknown, snake = true): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => plain(v, snake));
  if (value instanceof Set) return [...value].map((v) => plain(v, snake));
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), plain(v, snake)]));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snake ? snakeKey(k) : k, plain(v, snake)]));
}

export function workJson(p: Projection, w: WorkRecord, asOf: number, withPayload: boolean): Record<string, unknown> {
  const { state } = p;
  const { definition, ...rest } = w;
  return {
    ...(plain(rest) as Record<string, unknown>),
    ...workReadiness(state, w, asOf),
    owner: ownerOf(p, w),
    admitted_at: commitAt(state, w.admittedCommit),
    successors: state.successors.get(w.workId) ?? [],
    ...(withPayload ? { definition: plain(definition, false) } : {}),
  };
}

export interface ProjectionDocument {
  ok: true;
  schema: typeof PROJECTION_SCHEMA;
  as_of: number;
  tip: string | null;
  commits: number;
  [k: string]: unknown;
}

/** The whole document (`replay --json`). */
export function projectionDocument(p: Projection, asOf: number, options: { payloads?: boolean } = {}): ProjectionDocument {
  const { state } = p;
  const sorted = <V>(m: Map<string, V>) => [...m.values()];
  return {
    ok: true,
    schema: PROJECTION_SCHEMA,
    as_of: asOf,
    tip: state.tip,
    commits: state.commits.length,
    repository: state.repository,
    summary: summarize(p),
    policy: state.policy === null ? null : { epoch: state.policy.epoch, commit_id: state.policy.commitId, ordinal: state.policy.ordinal, policy: plain(state.policy.policy, false) },
    policy_history: state.policyHistory.map((h) => ({ epoch: h.epoch, commit_id: h.commitId, ordinal: h.ordinal })),
    controls: { ...state.controls },
    envelope: p.envelope(),
    works: [...p.works()].map((w) => workJson(p, w, asOf, options.payloads === true)),
    graphs: [...state.graphs].map(([graph_id, work_ids]) => ({ graph_id, work_ids })),
    claims: sorted(state.claims).map((c) => ({ ...(plain(c) as object), granted_at: commitAt(state, c.commitId), terminal_at: commitAt(state, c.terminalCommitId) })),
    dispatch_groups: sorted(state.dispatches).map((d) => ({ ...(plain({ ...d, profile: undefined, sender: undefined, run: undefined }) as object), profile: plain(d.profile, false), sender: plain(d.sender, false), run: plain(d.run, false) })),
    reservations: {
      logical: plain(state.outstandingClaims, false),
      logical_by_key: plain(state.outstandingByKey, false),
      native: plain(state.outstandingNative, false),
      pending_by_pool: plain(state.pendingByPool, false),
      held_by: sorted(state.dispatches).filter((d) => !d.released).map((d) => ({ dispatch_id: d.dispatchId, pool: d.pool, state: d.state, claims: d.claimIds.length })),
    },
    barriers: [...p.works()].filter((w) => w.barrier !== 'none').map((w) => ({
      work_id: w.workId, barrier: w.barrier, claim_id: w.claims.at(-1) ?? null, result_commit: w.resultCommit, delivery_failure_commit: w.deliveryFailureCommit,
    })),
    observations: sorted(state.observations).map((o) => ({ ...(plain({ ...o, operation: undefined }) as object), operation: plain(o.operation, false) })),
    latest_observations: plain(state.latestObservation, false),
    deployments: plain(state.deployments),
    fairness: plain(state.fairness),
    requests: sorted(state.requests).map((r) => ({ ...(plain({ ...r, actor: undefined }) as object), actor: plain(r.actor, false) })),
    ...(state.checkpoint === undefined ? {} : { checkpoint: plain(state.checkpoint) }),
  };
}

/** `--format jsonl`: one record per line, each tagged with its `type`, the queue header first. */
export function* projectionRecords(doc: ProjectionDocument): Generator<Record<string, unknown>> {
  const { works, graphs, claims, dispatch_groups, barriers, observations, requests, ...header } = doc as Record<string, unknown> & ProjectionDocument;
  yield { type: 'queue', ...header };
  const each = function* (type: string, list: unknown) {
    for (const r of list as Array<Record<string, unknown>>) yield { type, ...r };
  };
  yield* each('graph', graphs);
  yield* each('work', works);
  yield* each('claim', claims);
  yield* each('dispatch_group', dispatch_groups);
  yield* each('barrier', barriers);
  yield* each('observation', observations);
  yield* each('request', requests);
}
