/**
 * Issue/PR gate vertices (spec 7.16): identity, display coordinates, a
 * fully qualified link that keeps the Issue-versus-PR type, and the latest
 * trusted observation.
 */
import { isProtocolError } from '../../../engine/errors.ts';
import type { DependencyEdge, Projection, WorkRecord } from '../../../engine/replay/index.ts';
import { edgeReason, gateIdentity, type ExternalEdge } from '../../../engine/scheduler/eligibility.ts';

export interface GateView {
  gate: string;
  kind: 'issue' | 'pull_request';
  condition: string;
  host: string;
  repository: string;
  number: string;
  url: string;
  label: string;
  /** commitId null: compacted into a checkpoint (which keeps the Observation, not its commit) and not in the ledgers given. */
  observation: { id: string; state: string; observedAt: number; commitId: string | null; summary: string } | null;
}

export function isGate(edge: DependencyEdge): edge is ExternalEdge {
  return edge.kind !== 'work';
}

/**
 * Whether `work`'s dependency edge is satisfied at `asOf`: the engine's verdict on that edge
 * (`edgeReason`), never the console's own reading of an Observation. A Work whose pool the
 * Policy no longer configures cannot have its gates judged: they are not satisfied.
 */
export function edgeSatisfied(projection: Projection, work: WorkRecord, edge: DependencyEdge, asOf: number): boolean {
  try {
    return edgeReason(projection, edge, asOf, work.pool) === null;
  } catch (e) {
    if (isProtocolError(e)) return false;
    throw e;
  }
}

function safeUrl(host: string, repository: string, kind: string, number: string): string {
  const ok = /^[A-Za-z0-9.-]+$/.test(host) && /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository) && /^[1-9][0-9]*$/.test(number);
  return ok ? `https://${host}/${repository}/${kind === 'issue' ? 'issues' : 'pull'}/${number}` : '';
}

/**
 * The commit that recorded Observation `id` (the latest of `gate`): the current ledger's record, or
 * once compacted the newest of `ledgers` (the ones earlier checkpoints replaced, oldest first,
 * then the current one) that recorded it; null when none of them did.
 */
function observationCommit(ledgers: readonly Projection[], gate: string, id: string): string | null {
  for (let i = ledgers.length - 1; i >= 0; i--) {
    const o = ledgers[i]!.observation(gate);
    if (o?.observationId === id && o.commitId !== '') return o.commitId;
  }
  return null;
}

export function gateView(projection: Projection, edge: ExternalEdge, ledgers: readonly Projection[] = [projection]): GateView {
  const r = edge.resource;
  const gate = gateIdentity(edge);
  const o = projection.observation(gate);
  let summary = '';
  if (o !== undefined) {
    const op = o.operation;
    summary = edge.kind === 'pull_request'
      ? (op.merged === true ? 'merged' : `not merged (${String(op.resource_state ?? 'unknown')})`)
      : `${String(op.resource_state ?? 'unknown')}${op.state_reason ? ` as ${String(op.state_reason)}` : ''}`;
  }
  return {
    gate,
    kind: edge.kind,
    condition: edge.condition,
    host: r.host,
    repository: r.repository,
    number: r.number,
    url: safeUrl(r.host, r.repository, edge.kind, r.number),
    label: `${edge.kind === 'issue' ? 'Issue' : 'PR'} ${r.repository}#${r.number}`,
    observation: o === undefined ? null : { id: o.observationId, state: o.state, observedAt: o.observedAt, commitId: o.commitId !== '' ? o.commitId : observationCommit(ledgers, gate, o.observationId), summary },
  };
}
