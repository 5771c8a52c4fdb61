/**
 * The full authoritative projection as plain JSON (`fairway replay --json`, README "Output formats"):
 * every Work with its state, readiness and reason, every Claim, dispatch group and
 * reservation, delivery barriers, Observations, controls, Policy and the request index.
 * The schema is `fairway.projection/1`, documented in docs/projection-json.md. Work
 * payloads are left out unless asked for (`--with-payloads`): read surfaces print
 * metadata only. Keys are snake_case; Maps become objects, bigints decimal strings.
 */
import { summarize, type Projection, type WorkRecord } from '../engine/replay/index.ts';
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
  // Not `{ definition, ...rest } = w`: a replayed Work's definition is read back from its record when read (engine/state/definitions.ts).
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(w)) if (key !== 'definition') rest[key] = w[key as keyof WorkRecord];
  return {
    ...(plain(rest) as Record<string, unknown>),
    ...workReadiness(p, w, asOf),
    owner: ownerOf(p, w),
    admitted_at: commitAt(p, w.admittedCommit),
    successors: p.dependents(w.workId),
    ...(withPayload ? { definition: plain(w.definition, false) } : {}),
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
  const policy = p.policyRecord;
  const { reservations } = p;
  return {
    ok: true,
    schema: PROJECTION_SCHEMA,
    as_of: asOf,
    tip: p.tip,
    commits: p.commitCount,
    repository: p.repository,
    summary: summarize(p),
    policy: policy === null ? null : { epoch: policy.epoch, commit_id: policy.commitId, ordinal: policy.ordinal, policy: plain(policy.policy, false) },
    policy_history: p.policyHistory.map((h) => ({ epoch: h.epoch, commit_id: h.commitId, ordinal: h.ordinal })),
    controls: { ...p.controls },
    envelope: p.envelope(),
    works: [...p.works()].map((w) => workJson(p, w, asOf, options.payloads === true)),
    graphs: [...p.graphs].map(([graph_id, work_ids]) => ({ graph_id, work_ids })),
    claims: [...p.claims()].map((c) => ({ ...(plain(c) as object), granted_at: commitAt(p, c.commitId), terminal_at: commitAt(p, c.terminalCommitId) })),
    dispatch_groups: [...p.dispatches()].map((d) => ({ ...(plain({ ...d, profile: undefined, sender: undefined, run: undefined }) as object), profile: plain(d.profile, false), sender: plain(d.sender, false), run: plain(d.run, false) })),
    reservations: {
      logical: plain(reservations.logical, false),
      logical_by_key: plain(reservations.logicalByKey, false),
      native: plain(reservations.native, false),
      pending_by_pool: plain(reservations.pendingByPool, false),
      held_by: [...p.dispatches()].filter((d) => !d.released).map((d) => ({ dispatch_id: d.dispatchId, pool: d.pool, state: d.state, claims: d.claimIds.length })),
    },
    barriers: [...p.works()].filter((w) => w.barrier !== 'none').map((w) => ({
      work_id: w.workId, barrier: w.barrier, claim_id: w.claims.at(-1) ?? null, result_commit: w.resultCommit, delivery_failure_commit: w.deliveryFailureCommit,
    })),
    observations: [...p.observations()].map((o) => ({ ...(plain({ ...o, operation: undefined }) as object), operation: plain(o.operation, false) })),
    latest_observations: plain(p.latestObservations, false),
    deployments: plain(p.deployments),
    fairness: plain(p.fairness),
    requests: [...p.requests()].map((r) => ({ ...(plain({ ...r, actor: undefined }) as object), actor: plain(r.actor, false) })),
    ...(p.checkpoint === undefined ? {} : { checkpoint: plain(p.checkpoint) }),
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
