/**
 * Checkpoint-rooted ledgers of several shapes (spec 7.10 "compact", 7.17), built with the
 * engine's own checkpoint builder (what `fairway compact` publishes): genesis-only (no Work,
 * untouched clocks), a policy with Work but no Claims, a full history, a queue whose Work
 * all finished, repeated compaction, backing Issues across Policy epochs, and a checkpoint
 * root followed by more commits. `editCheckpoint` tampers with a root's state and reseals it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { canonicalize } from '../../engine/codec/index.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { buildCheckpointCommit } from '../../engine/replay/checkpoint.ts';
import { installedContract } from '../../engine/replay/ops/deployment.ts';
import { replayLedger, type Projection } from '../../engine/replay/index.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { candidateTerminalRequest, conflictTransition, uncertainTransition } from '../../engine/lifecycle/dispatch.ts';
import { requestFingerprint } from '../../engine/identity/index.ts';
import { stateDigest } from '../../engine/replay/checkpoint.ts';
import { policyRequest } from '../../engine/requests/admin.ts';
import { cancelWork, release, result } from '../../engine/requests/lifecycle.ts';
import { operationsRequest, submitRequest } from '../../engine/requests/operations.ts';
import { admin as queueAdmin, nodes, policyOf, producer, reconciler, REPOSITORY, TestQueue } from '../acceptance/queue.ts';
import { completedClaim, evidence, grantOne, start } from '../conformance/forbidden.ts';
import { issueIn, OTHER, policyWith, projectorActor, rule, RULE_REF } from '../issues/rules.ts';
import { baseLedger, ledgerLines } from './duplicates.ts';

const FIXTURES = new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/', import.meta.url);
export const CHECKPOINT_FIXTURE = new URL('checkpoint.json', FIXTURES);
export const PREFIX_FIXTURE = new URL('canonical-prefix.json', FIXTURES);

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const ln = (lines: readonly string[]): string => lines.map((l) => `${l}\n`).join('');

export interface CheckpointShape {
  name: string;
  ledger: string;
}

function admin(p: Projection): Actor {
  return { role: 'administrator', principal: '1', repository: p.state.repository! } as Actor;
}

/** The checkpoint root that replaces `ledger` (as `fairway compact` writes it). */
export function checkpointOf(ledger: string, sha = 'c'.repeat(40)): string {
  const p = replayLedger(bytes(ledger));
  const at = p.state.commits[p.state.commits.length - 1]!.at;
  return `${canonicalize(buildCheckpointCommit(p, { priorGitSha: sha, actor: admin(p), at }) as unknown as JsonValue)}\n`;
}

/** `lines` re-chained onto `root`: the first one's `previous` becomes the root's id (ids are free-form in the fixture). */
function chainedOnto(root: string, lines: readonly string[]): string {
  const rootId = (JSON.parse(root) as { id: string }).id;
  const [first, ...rest] = lines;
  const head = JSON.parse(first!) as JsonObject;
  head.previous = rootId;
  return root + ln([canonicalize(head), ...rest]);
}

/** Grant, start, uncertain, a conflict of runs 7001/7002 and run 7001's exact terminal evidence (issue 20). */
export function conflictLedger(): string {
  const q = new TestQueue(policyOf({ accounting_weights: { a: 1 } }), nodes('p', 1, 'a'));
  const { dispatchId } = grantOne(q);
  start(q, dispatchId);
  q.w.publish('uncertain', reconciler, q.tick(), uncertainTransition(q.state, dispatchId, 'dispatch_response_lost'));
  q.w.publish('conflict', reconciler, q.tick(), conflictTransition(q.state, dispatchId, ['7001', '7002'], evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api', attempts: 1 })));
  q.w.publish('terminal-7001', reconciler, q.tick(), candidateTerminalRequest(q.state, dispatchId,
    [evidence(q, dispatchId, { kind: 'terminal_run', source: 'github_api', runId: '7001', conclusion: 'success', completed: true })]));
  return q.text();
}

/** The pre-existing Issue the backing-Issue ledger grants and admits Work `b` with. */
export const GRANTED_ISSUE = issueIn(OTHER, 7);
/** The Issue the backing-Issue ledger's projector creates and links to the completed Work. */
export const CREATED_ISSUE = issueIn(REPOSITORY, 11);

/**
 * Backing Issues across Policy epochs: under epoch-1 (a close-on-result rule granting
 * GRANTED_ISSUE) Work `x` is completed with a verified Result and linked to CREATED_ISSUE with a
 * summary comment and its Claim's comment; Work `b` is admitted with GRANTED_ISSUE and
 * commented; `x`, `b` and `d` settle; then epoch-2 (admitting nothing) and the current epoch-3.
 */
export function backingIssuesLedger(): { ledger: string; x: string; b: string; d: string; claim: string } {
  const q = new TestQueue(policyWith([rule({ completion_policy: 'close-on-result', backing_issues: [GRANTED_ISSUE as never] })]), [{ node_key: 'x', payload: {} }, { node_key: 'd', payload: {} }]);
  q.w.publish('submit-b', producer, q.tick(), submitRequest(q.state, [{ node_key: 'b', payload: {}, backing_issue: GRANTED_ISSUE }], { graphId: 'g2', at: q.t }));
  const { workId: x, claimId: claim, dispatchId } = completedClaim(q, '301');
  const [b, d] = [q.workId('b'), q.workId('d')];
  q.w.publish('result', reconciler, q.tick(), result(q.state, x, { outputs: [{ type: 'create_issue' }] as unknown as JsonObject[] }, q.t, 'r1'));
  q.w.publish('release', reconciler, q.tick(), release(q.state, dispatchId, q.t));
  q.w.publish('project', projectorActor, q.tick(), operationsRequest('observe', [
    { kind: 'IssueLink', work_id: x, claim_id: claim, resource: CREATED_ISSUE, projector_ref: RULE_REF } as never,
    { kind: 'IssueComment', work_id: x, comment_id: '91', projector_ref: RULE_REF },
    { kind: 'IssueComment', work_id: x, comment_id: '92', claim_id: claim, projector_ref: RULE_REF },
    { kind: 'IssueComment', work_id: b, comment_id: '93', projector_ref: RULE_REF },
  ]));
  q.w.publish('cancel', queueAdmin, q.tick(), cancelWork([b, d], 'drain'));
  q.w.publish('policy-2', queueAdmin, q.tick(), policyRequest('epoch-2', policyWith([rule()])));
  q.w.publish('policy-3', queueAdmin, q.tick(), policyRequest('epoch-3', policyWith([rule({ completion_policy: 'close-on-result' })])));
  return { ledger: q.text(), x, b, d, claim };
}

/** `ledger` with its checkpoint root's state edited, the state digest, parameters and fingerprint recomputed. */
export function editCheckpoint(ledger: string, edit: (state: JsonObject) => void): string {
  const [rootLine, ...rest] = ledger.split('\n');
  const root = JSON.parse(rootLine!) as JsonObject & { actor: JsonValue; request: { kind: string; parameters: JsonObject; fingerprint: string }; operations: Array<JsonObject & { state: JsonObject }> };
  const op = root.operations[0]!;
  edit(op.state);
  op.state_sha256 = stateDigest(op.state);
  root.request.parameters.state_sha256 = op.state_sha256;
  root.request.fingerprint = requestFingerprint(root.actor, root.request.kind, root.request.parameters);
  return [canonicalize(root as JsonValue), ...rest].join('\n');
}

/** Settles one Work end to end: granted, completed by run `run`, its Result verified, its group released. */
function settleOne(q: TestQueue, run: string): void {
  const { workId, dispatchId } = completedClaim(q, run);
  q.w.publish(`result-${run}`, reconciler, q.tick(), result(q.state, workId, { outputs: [] as unknown as JsonObject[] }, q.t, `r${run}`));
  q.w.publish(`release-${run}`, reconciler, q.tick(), release(q.state, dispatchId, q.t));
}

/**
 * Work settled under routes a later Policy epoch replaced: (a) an epoch that changes the profile's
 * authority (its contract), (b) a Deployment with its own logical contract, then a new epoch
 * that clears it. Their frozen contracts are of no installed route (checkpoint-deployments.ts).
 */
export function earlierEpochRoutesLedgers(): { authority: string; deployed: string } {
  const a = new TestQueue(policyOf(), nodes('a', 1, ''));
  settleOne(a, '301');
  a.w.publish('policy-2', queueAdmin, a.tick(), policyRequest('epoch-2', policyOf({}, { profile: { principal: '2002' } })));
  const c = new TestQueue(policyOf(), nodes('x', 1, ''));
  settleOne(c, '300');
  const installed = (c.state.policy!.policy.pools as Record<string, { profiles: Record<string, JsonObject> }>).default!.profiles.default!;
  const route = c.state.deployments.get('default\u0000default');
  c.w.publish('deploy', queueAdmin, c.tick(), operationsRequest('control', [{
    kind: 'Deployment', pool: 'default', worker_profile: 'default', expected_ref: route?.currentRef ?? String(installed.ref),
    expected_contract: route === undefined ? installedContract(installed) : route.revisions.get(route.currentRef)!.contract,
    profile: { ...installed, ref: 'b'.repeat(40), logical_contract: 'e'.repeat(64) }, available: true, reason: 'worker_deployed',
  } as JsonObject]));
  c.submit(nodes('c', 1, ''));
  settleOne(c, '302');
  c.w.publish('policy-2', queueAdmin, c.tick(), policyRequest('epoch-2', policyOf()));
  return { authority: a.text(), deployed: c.text() };
}

/** Every shape; the reference-fixture shapes only when ../shared/reference is present. */
export function checkpointShapes(): CheckpointShape[] {
  const demo = ledgerLines(baseLedger());
  const routes = earlierEpochRoutesLedgers();
  const shapes: CheckpointShape[] = [
    { name: 'checkpoint of a Fairway genesis (combined Policy+Work, no Claims, untouched clocks)', ledger: checkpointOf(ln(demo.slice(0, 1))) },
    { name: 'checkpoint of a queue whose grants all finished and released (demo queue)', ledger: checkpointOf(ln(demo)) },
    { name: 'checkpoint taken mid-flight (open Claims and reservations)', ledger: checkpointOf(ln(demo.slice(0, 5))) },
    { name: 'repeated compaction: checkpoint of a checkpoint-rooted ledger', ledger: checkpointOf(checkpointOf(ln(demo)), 'd'.repeat(40)) },
    { name: 'checkpoint of a recorded run binding conflict (candidates, one with terminal evidence)', ledger: checkpointOf(conflictLedger()) },
    { name: 'checkpoint of backing Issues across Policy epochs (IssueLink, comments, an earlier epoch\'s projector rules)', ledger: checkpointOf(backingIssuesLedger().ledger) },
    { name: 'checkpoint after a Policy epoch that changed a profile\'s authority (Work frozen at the earlier contract)', ledger: checkpointOf(routes.authority) },
    { name: 'checkpoint after a Policy epoch cleared a Deployment with its own logical contract', ledger: checkpointOf(routes.deployed) },
  ];
  if (existsSync(CHECKPOINT_FIXTURE) && existsSync(PREFIX_FIXTURE)) {
    const fixture = JSON.parse(readFileSync(CHECKPOINT_FIXTURE, 'utf8')) as { history: JsonValue[]; checkpoint: JsonValue[]; genesis_checkpoint: JsonValue[] };
    const canonical = ledgerLines((JSON.parse(readFileSync(PREFIX_FIXTURE, 'utf8')) as { canonical: string }).canonical);
    shapes.push(
      { name: 'checkpoint.json genesis_checkpoint (Policy only: no pools\' clocks, no Work)', ledger: ln([canonicalize(fixture.genesis_checkpoint[0]!)]) },
      { name: 'checkpoint.json checkpoint (Policy, submit, grant)', ledger: ln([canonicalize(fixture.checkpoint[0]!)]) },
      { name: 'checkpoint of a policy-only genesis (canonical-prefix q0: no Work, no clocks)', ledger: checkpointOf(ln(canonical.slice(0, 1))) },
      { name: 'checkpoint of canonical-prefix (observations, gates, claims)', ledger: checkpointOf(ln(canonical)) },
      { name: 'checkpoint root followed by more commits (canonical-prefix compacted at q8, then q9..)', ledger: chainedOnto(checkpointOf(ln(canonical.slice(0, 9))), canonical.slice(9)) },
    );
  }
  return shapes;
}
