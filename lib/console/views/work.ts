/**
 * One Work's page (docs/console.md "Pages" `/work/[id]`): definition (payload kept as JSON
 * text for a collapsed, escaped block), state and readiness with the blocking
 * path, dependencies both ways, replacement lineage, Claim history, Result or
 * DeliveryFailure, and every commit that touched it.
 */
import type { JsonObject } from '../../../engine/json.ts';
import { deliveryFailureCommitOf, settlingOperation } from '../../../engine/lifecycle/barrier.ts';
import { commitTime } from '../../../engine/receipts/committed.ts';
import type { Projection } from '../../../engine/replay/index.ts';
import type { WorkRecord } from '../../../engine/state/state.ts';
import { ledgerRetaining } from '../../publisher/history.ts';
import { runUrl } from './admin-targets.ts';
import { backingIssue, type BackingIssueView } from './backing-issue.ts';
import { blockingDiagram, type Diagram } from './blocking.ts';
import { edgeSatisfied, gateView, isGate, type GateView } from './gates.ts';
import { linePosition, type LinePosition } from './line.ts';
import { admittedAt, workStatus, type WorkStatus } from './status.ts';

export type DependencyView =
  | { kind: 'work'; workId: string; nodeKey: string | null; state: string | null; barrier: string | null; satisfied: boolean }
  | { kind: 'gate'; gate: GateView; satisfied: boolean };

export interface ClaimView {
  claimId: string;
  requestId: string;
  commitId: string;
  at: number;
  dispatchId: string;
  handle: string;
  state: string;
  dispatchState: string;
  runId: string | null;
  /** The run on the console's GitHub host (https://HOST/OWNER/REPO/actions/runs/ID), when known. */
  runUrl: string | null;
  terminalCommitId: string | null;
  terminalAt: number | null;
  cancelReason: string | null;
  retryNotBefore: number | null;
  observations: string[];
}

export interface WorkDetail {
  work: WorkRecord;
  admittedAt: number;
  payloadJson: string;
  subject: JsonObject | null;
  replacementOf: { workId: string; nodeKey: string | null; disposition: string; evidence: string } | null;
  replacedBy: Array<{ workId: string; nodeKey: string }>;
  status: WorkStatus;
  dependencies: DependencyView[];
  successors: Array<{ workId: string; nodeKey: string; state: string }>;
  claims: ClaimView[];
  result: { commitId: string; at: number | null; descriptorJson: string } | null;
  /** commitId null: compacted into the checkpoint root, which keeps the operation but not its commit (see `compacted`). */
  deliveryFailure: { commitId: string | null; at: number | null; reason: string; disposition: string } | null;
  cancellation: { commitId: string; at: number | null; reason: string } | null;
  history: Array<{ commitId: string; at: number; kind: string; requestId: string }>;
  blocking: Diagram | null;
  /** Available Work in its pool's line: where it stands in the predicted grant order (docs/console.md "Pages", `/next`); null when not in it. */
  line: LinePosition | null;
  /** The backing Issue bound by the ledger's IssueLink, if any (docs/backing-issues.md). */
  backingIssue: BackingIssueView | null;
  /**
   * Set when the Work is older than the oldest ledger given (its admission was compacted and the
   * earlier ledger not read): commits and commit ids from before `checkpoint` are missing here;
   * they are in the ledger at Git commit `priorGitSha`.
   */
  compacted: { checkpoint: string; priorGitSha: string } | null;
}

/**
 * One Work's page at decision time `asOf`; `host` is the console's GitHub host (run links).
 * `ledgers`: the ledgers back to the one that admitted the Work, oldest first and ending with
 * `projection` (lib/publisher/history.ts `ledgersBackTo`), for what a checkpoint does not keep:
 * the DeliveryFailure's and Observations' commits and the commits that touched it.
 */
export function workDetail(projection: Projection, workId: string, asOf: number, host: string, ledgers: readonly Projection[] = [projection]): WorkDetail | null {
  const work = projection.work(workId);
  if (work === undefined) return null;
  const status = workStatus(projection, work, asOf);
  const definition = work.definition;
  const replacement = definition.replacement_of as { work_id: string; disposition: string; evidence: string } | undefined;

  // Each edge judged as the engine judges it (not only the first blocking one on the path).
  const dependencies: DependencyView[] = work.dependsOn.map((edge) => {
    const satisfied = edgeSatisfied(projection, work, edge, asOf);
    if (isGate(edge)) return { kind: 'gate', gate: gateView(projection, edge, ledgers), satisfied };
    const parent = projection.work(edge.work_id);
    return { kind: 'work', workId: edge.work_id, nodeKey: parent?.nodeKey ?? null, state: parent?.state ?? null, barrier: parent?.barrier ?? null, satisfied };
  });

  const claims: ClaimView[] = work.claims.map((id) => {
    const c = projection.claim(id)!;
    const d = projection.dispatch(c.dispatchId);
    return {
      claimId: c.claimId, requestId: c.requestId, commitId: c.commitId, at: commitTime(projection, c.commitId) ?? 0,
      dispatchId: c.dispatchId, handle: c.handle, state: c.state,
      dispatchState: d === undefined ? 'unknown' : d.released ? 'released' : d.state,
      runId: (d?.run as { run_id?: string } | null)?.run_id ?? null,
      runUrl: runUrl(host, ((d?.run as { repository?: string } | null)?.repository) ?? projection.repository, (d?.run as { run_id?: string } | null)?.run_id ?? null),
      terminalCommitId: c.terminalCommitId, terminalAt: commitTime(projection, c.terminalCommitId),
      cancelReason: c.cancelReason, retryNotBefore: c.retryNotBefore, observations: c.observations,
    };
  });

  const resultInput = projection.resultInput(workId);
  // A compacted DeliveryFailure keeps its operation in the checkpoint, not its commit id.
  const failureOp = work.barrier === 'failed' ? settlingOperation(projection, workId) : null;
  const failureCommit = deliveryFailureCommitOf(ledgers, workId);
  const oldest = ledgers[0]!;
  const replacedBy: WorkDetail['replacedBy'] = [];
  for (const other of projection.works()) {
    if (other.replacementOf === workId) replacedBy.push({ workId: other.workId, nodeKey: other.nodeKey });
  }

  return {
    work,
    admittedAt: admittedAt(projection, work),
    payloadJson: JSON.stringify(definition.payload ?? {}, null, 2),
    subject: (definition.subject as JsonObject | undefined) ?? null,
    replacementOf: replacement === undefined ? null : {
      workId: replacement.work_id, nodeKey: projection.work(replacement.work_id)?.nodeKey ?? null,
      disposition: replacement.disposition, evidence: replacement.evidence,
    },
    replacedBy,
    status,
    dependencies,
    successors: (projection.dependents(workId)).map((id) => {
      const s = projection.work(id)!;
      return { workId: id, nodeKey: s.nodeKey, state: s.state };
    }),
    claims,
    result: work.resultCommit === null ? null : {
      commitId: work.resultCommit, at: commitTime(projection, work.resultCommit),
      descriptorJson: JSON.stringify(resultInput?.descriptor ?? {}, null, 2),
    },
    deliveryFailure: work.barrier !== 'failed' ? null : {
      commitId: failureCommit, at: commitTime(projection, failureCommit),
      reason: String(failureOp?.reason ?? 'unknown'), disposition: String(failureOp?.disposition ?? 'unknown'),
    },
    cancellation: work.cancellationCommit === null ? null : {
      commitId: work.cancellationCommit, at: commitTime(projection, work.cancellationCommit), reason: work.cancellationReason ?? 'unknown',
    },
    // Commits compacted into a checkpoint root are not in this ledger: each from the ledger that retains it.
    history: [...new Set(ledgers.flatMap((l) => l.work(workId)?.touchedBy ?? []))].flatMap((id) => {
      const c = ledgerRetaining(ledgers, id)?.commitInfo(id);
      return c === undefined ? [] : [{ commitId: id, at: c.at, kind: c.kind, requestId: c.requestId }];
    }),
    blocking: work.dependsOn.length > 0 ? blockingDiagram(projection, work, asOf, status) : null,
    // The line's own answer (it assumes grants resume and running Claims finish), as /next, `fairway next` and MCP explain show it.
    line: work.state === 'available' ? linePosition(projection, asOf, workId) : null,
    backingIssue: backingIssue(projection, workId),
    compacted: oldest.checkpoint === undefined || oldest.commitText(work.admittedCommit) !== undefined ? null
      : { checkpoint: oldest.commits[0]!.id, priorGitSha: oldest.checkpoint.priorGitSha },
  };
}
