/**
 * Strict reading of a checkpoint `state` object (replay/checkpoint.ts describes the shape), and
 * the restoration of its self-contained parts (clocks, observations, extensions); the rest is in
 * checkpoint-restore.ts. Every malformed or inconsistent field is `checkpoint_invalid`, located at
 * the root's single Checkpoint operation.
 */
import { canonicalize } from '../codec/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { ObservationOperationSchema } from '../schema/index.ts';
import { createFairnessState, type FairnessState, type SiblingClock } from '../state/fairness.ts';
import { restoreDeployments } from './checkpoint-deployments.ts';
import { restoreIssueExtensions } from './checkpoint-issues.ts';
import type { StateReader } from './checkpoint-reader.ts';
import { observationIncoherence } from './ops/observation.ts';
import { gateIdentity } from '../identity/index.ts';
import type { ReplayState, ResourceIdentity } from '../state/state.ts';

/** The reference snapshot's keys (fixtures/checkpoint.json, 1bb494cc), all required. */
export const STATE_KEYS = [
  'repository', 'tip', 'policy_epoch', 'policy', 'works', 'claims', 'dispatches', 'observations', 'requests',
  'clocks', 'admission_paused', 'grants_paused', 'credential_generation', 'stats', 'ledger_bytes',
  'observation_writes', 'seen_epochs', 'seen_generations', 'observation_ids', 'terminal_barriers',
  'cancellations', 'completion_times', 'last_at',
] as const;

/**
 * Fairway extensions, written only when nonempty (so reference-shaped states stay byte-identical):
 * replay facts of operations the reference's checkpoint version predates.
 */
export const EXTENSION_KEYS = ['deployments', 'admission_contracts', 'issue_links', 'epoch_projectors'] as const;

/** Keys of a checkpoint Work entry that are replay state rather than the admitted Work operation. */
export const WORK_STATE_KEYS: ReadonlySet<string> = new Set([
  'effective_priority', 'state', 'position', 'claim_id', 'attempts', 'retry_not_before', 'completion_id', 'barrier',
  'result', 'result_commit_id', 'disposition', 'cancellation_reason', 'cancellation_claim_id', 'cancellation_commit_id',
]);

export const RECEIPT_KEYS: ReadonlySet<string> = new Set([
  'id', 'request_id', 'kind', 'fingerprint', 'parameters_digest', 'dispatch_parameters', 'actor', 'policy_epoch', 'at', 'claims',
]);

function priorityClass(r: StateReader, key: string, what: string): number {
  return /^[1-5]$/.test(key) ? Number(key) : r.bad(`${what}: ${key} is not a priority class`);
}

function readClock<K>(r: StateReader, raw: JsonValue | undefined, what: string, member: (key: string) => K): SiblingClock<K> {
  const clock = r.obj(raw, what);
  r.keys(clock, new Set(['v', 'pass', 'active']), what);
  const pass = new Map<K, bigint>();
  for (const [key, value] of Object.entries(r.obj(clock.pass, `${what}.pass`))) pass.set(member(key), r.decimal(value, `${what}.pass.${key}`));
  const active = new Set(r.set(clock.active, `${what}.active`).map(member));
  return { v: r.decimal(clock.v, `${what}.v`), pass, active };
}

/** Fresh clocks of `epoch` with the checkpoint's per-pool class and key sibling sets. */
export function readFairness(r: StateReader, raw: JsonValue | undefined, policy: JsonObject, epoch: string): FairnessState {
  const fairness = createFairnessState(policy, epoch);
  for (const [pool, value] of Object.entries(r.obj(raw, 'clocks'))) {
    const what = `clocks.${pool}`;
    const clocks = r.obj(value, what);
    r.keys(clocks, new Set(['classes', 'keys']), what);
    const keys = new Map<number, SiblingClock<string>>();
    for (const [cls, clock] of Object.entries(r.obj(clocks.keys, `${what}.keys`))) {
      keys.set(priorityClass(r, cls, `${what}.keys`), readClock(r, clock, `${what}.keys.${cls}`, (k) => k));
    }
    const classes = readClock(r, clocks.classes, `${what}.classes`, (k) => priorityClass(r, k, `${what}.classes`));
    fairness.pools.set(pool, { classes, keys });
  }
  return fairness;
}

/** Every Observation by id, the latest per gate, and the epoch's write budgets per gate. */
export function restoreObservations(r: StateReader, state: ReplayState, snapshot: JsonObject): void {
  for (const [id, value] of Object.entries(r.obj(snapshot.observation_ids, 'observation_ids'))) {
    const parsed = ObservationOperationSchema.safeParse(value);
    if (!parsed.success || parsed.data.observation_id !== id) r.bad(`observation_ids.${id} is not a valid Observation ${id}`);
    const op = parsed.data;
    // What replay refuses in an Observation operation (ops/observation.ts), a restored one cannot hold.
    const problem = observationIncoherence(op);
    if (problem !== null) r.bad(`observation_ids.${id} is no Observation replay accepts: ${problem}`);
    state.observations.set(id, {
      observationId: id, commitId: '', gate: gateIdentity(op.resource as ResourceIdentity, op.condition), condition: op.condition,
      state: op.state, observedAt: op.observed_at, credentialGeneration: op.credential_generation, readStatus: op.read_status,
      operation: value as JsonObject,
    });
  }
  for (const [gate, value] of Object.entries(r.obj(snapshot.observations, 'observations'))) {
    const latest = state.observations.get(String(r.obj(value, `observations.${gate}`).observation_id));
    if (latest === undefined || latest.gate !== gate || canonicalize(latest.operation) !== canonicalize(value)) r.bad(`observations.${gate} is not a recorded Observation of that gate`);
    state.latestObservation.set(gate, latest.observationId);
  }
  for (const [gate, n] of Object.entries(r.obj(snapshot.observation_writes, 'observation_writes'))) {
    state.observationWrites.set(gate, r.int(n, `observation_writes.${gate}`));
  }
}

/**
 * Fairway extensions: Deployment routes and admission contracts (checkpoint-deployments.ts),
 * backing-Issue records and earlier epochs' projector rules (checkpoint-issues.ts).
 */
export function restoreExtensions(r: StateReader, state: ReplayState, snapshot: JsonObject): void {
  restoreDeployments(r, state, snapshot);
  restoreIssueExtensions(r, state, snapshot);
}
