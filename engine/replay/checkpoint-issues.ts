/**
 * The backing-Issue checkpoint extensions (operator reference "Backing Issues"; spec 7.10
 * "Compaction" keeps every accepted obligation), each written only when nonempty so
 * reference-shaped states keep their bytes:
 *
 * - `issue_links` (`{work_id: [IssueLink | IssueComment, ...]}`): each Work's projector records
 *   in replay order. Restoration parses every record with its closed operation schema
 *   (`work_id` equal to its key) and re-checks what replaying the records guaranteed
 *   (replay/ops/projector.ts, ops/backing-issue.ts): at most one IssueLink per Work, to an Issue
 *   (never a pull request), the Work's admitted `backing_issue` if it has one; one Work per
 *   Issue across IssueLinks and admitted `backing_issue`s; no rebound comment handle (one
 *   summary per Work, one comment per Claim, comment ids unique in the queue, a comment only
 *   after its Work's IssueLink or on its admitted `backing_issue`); every Claim named belongs to
 *   the Work. It rebuilds `state.linkedIssues` and `state.issueComments`.
 * - `epoch_projectors` (`{epoch: [ProjectorRule, ...]}`): the projector rules of each earlier
 *   Policy epoch under which restored Work was admitted. Closure is decided by the rules in
 *   force at a Work's admission (ops/projector-rules.ts `admissionCompletionPolicy`) and the
 *   checkpoint's `policy` is only the current epoch's, so without them compaction would turn a
 *   `close-on-result` into `keep-open`. Restoration parses them with the rule schema, checks
 *   their coherence (apart from pools, which that epoch's Policy held) and installs them as that
 *   epoch's Policy record (`{projectors}`; the rest of an earlier Policy is not kept).
 *
 * Anything else is `checkpoint_invalid`.
 */
import type { JsonObject, JsonValue } from '../json.ts';
import { IssueCommentOperationSchema, IssueLinkOperationSchema, ProjectorRulesSchema, issuePath } from '../schema/index.ts';
import type { StateReader } from './checkpoint-reader.ts';
import { admittedBackingIssue, issueIdentity, noteIssueLink } from './ops/backing-issue.ts';
import { rulesIncoherence } from './ops/projector-rules.ts';
import type { ReplayState, ResourceIdentity, WorkRecord } from '../state/state.ts';

/** The snapshot's backing-Issue extensions (each only when nonempty). */
export function issueExtensions(state: ReplayState): JsonObject {
  const out: JsonObject = {};
  const links: JsonObject = {};
  for (const [workId, records] of state.issueLinks) if (records.length > 0) links[workId] = records;
  if (Object.keys(links).length > 0) out.issue_links = links;
  const admitted = admittedEpochs(state);
  const projectors: JsonObject = {};
  for (const { epoch, policy } of state.policyHistory) {
    if (epoch !== state.policy?.epoch && admitted.has(epoch) && policy.projectors !== undefined) projectors[epoch] = policy.projectors;
  }
  if (Object.keys(projectors).length > 0) out.epoch_projectors = projectors;
  return out;
}

export function restoreIssueExtensions(r: StateReader, state: ReplayState, snapshot: JsonObject): void {
  if (snapshot.epoch_projectors !== undefined) restoreEpochProjectors(r, state, r.obj(snapshot.epoch_projectors, 'epoch_projectors'));
  restoreIssueLinks(r, state, snapshot.issue_links === undefined ? {} : r.obj(snapshot.issue_links, 'issue_links'));
}

function admittedEpochs(state: ReplayState): Set<string> {
  const epochs = new Set<string>();
  for (const work of state.works.values()) epochs.add(work.policyEpoch);
  return epochs;
}

function restoreEpochProjectors(r: StateReader, state: ReplayState, raw: JsonObject): void {
  const admitted = admittedEpochs(state);
  for (const [epoch, value] of Object.entries(raw)) {
    const what = `epoch_projectors.${epoch}`;
    const record = state.policyHistory.find((p) => p.epoch === epoch);
    if (record === undefined || record === state.policy) r.bad(`${what}: ${epoch} is not an earlier Policy epoch of seen_epochs`);
    if (!admitted.has(epoch)) r.bad(`${what}: no restored Work was admitted under epoch ${epoch}`);
    const parsed = ProjectorRulesSchema.safeParse(value);
    if (!parsed.success) r.bad(`${what} does not match the projector rule schema at ${issuePath(parsed.error.issues[0]) || '(root)'}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    const incoherent = rulesIncoherence(parsed.data, () => true);
    if (incoherent !== null) r.bad(`${what}: ${incoherent}`);
    record.policy = { projectors: parsed.data };
  }
}

/** One Work's records, by the rules replay applied to them one at a time. */
interface WorkBindings {
  link: ResourceIdentity | undefined;
  claims: Set<string>;
  summary: boolean;
}

function restoreIssueLinks(r: StateReader, state: ReplayState, raw: JsonObject): void {
  // One Work per Issue: admitted backing Issues first (admission refused a second one), then links.
  const owners = new Map<string, string>();
  for (const work of state.works.values()) {
    const issue = admittedBackingIssue(work);
    if (issue === undefined) continue;
    const named = `${issue.repository}#${issue.number}`;
    if (issue.kind !== 'issue') r.bad(`works.${work.workId}.backing_issue ${named} is a pull request; a backing resource must be an Issue`);
    const other = owners.get(issueIdentity(issue));
    if (other !== undefined) r.bad(`Works ${other} and ${work.workId} were both admitted with backing Issue ${named} (one Work per Issue)`);
    owners.set(issueIdentity(issue), work.workId);
    state.backingIssues.set(issueIdentity(issue), work.workId);
  }
  for (const [workId, value] of Object.entries(raw)) {
    const work = state.works.get(workId);
    if (work === undefined) r.bad(`issue_links names unknown Work ${workId}`);
    const seen: WorkBindings = { link: undefined, claims: new Set(), summary: false };
    const records = r.arr(value, `issue_links.${workId}`).map((x, i) => bindingOf(r, state, work, seen, x, `issue_links.${workId}[${i}]`));
    if (seen.link !== undefined) {
      const identity = issueIdentity(seen.link);
      const other = owners.get(identity);
      if (other !== undefined && other !== workId) r.bad(`issue_links.${workId}: Issue ${seen.link.repository}#${seen.link.number} already backs Work ${other} (one Work per Issue)`);
      owners.set(identity, workId);
      noteIssueLink(state, workId, seen.link);
    }
    if (records.length > 0) state.issueLinks.set(workId, records);
  }
}

/** One record, checked against the Work's earlier records as replay checked it (ops/projector.ts). */
function bindingOf(r: StateReader, state: ReplayState, work: WorkRecord, seen: WorkBindings, value: JsonValue, what: string): JsonObject {
  const raw = r.obj(value, what);
  const claimOf = (id: string | undefined, field: string): void => {
    if (id !== undefined && state.claims.get(id)?.workId !== work.workId) r.bad(`${what}.${field}: Claim ${id} does not belong to Work ${work.workId}`);
  };
  if (raw.kind === 'IssueLink') {
    const parsed = IssueLinkOperationSchema.safeParse(raw);
    if (!parsed.success || parsed.data.work_id !== work.workId) return r.bad(`${what} is not an IssueLink operation of Work ${work.workId}`);
    const resource = parsed.data.resource as ResourceIdentity;
    const named = `${resource.repository}#${resource.number}`;
    claimOf(parsed.data.claim_id, 'claim_id');
    if (resource.kind !== 'issue') r.bad(`${what} links pull request ${named}; a backing resource must be an Issue`);
    if (seen.link !== undefined) r.bad(`${what}: Work ${work.workId} already has a backing Issue (one IssueLink per Work)`);
    const admitted = admittedBackingIssue(work);
    if (admitted !== undefined && issueIdentity(admitted) !== issueIdentity(resource)) r.bad(`${what}: Work ${work.workId} was admitted with another backing Issue than ${named}`);
    seen.link = resource;
    return raw;
  }
  const parsed = IssueCommentOperationSchema.safeParse(raw);
  if (!parsed.success || parsed.data.work_id !== work.workId) return r.bad(`${what} is not an IssueLink or IssueComment operation of Work ${work.workId}`);
  const op = parsed.data;
  claimOf(op.claim_id, 'claim_id');
  claimOf(op.authority_claim_id, 'authority_claim_id');
  const holder = state.issueComments.get(op.comment_id);
  if (holder !== undefined) r.bad(`${what}: comment ${op.comment_id} is already recorded for Work ${holder}`);
  if (seen.link === undefined && admittedBackingIssue(work) === undefined) r.bad(`${what}: Work ${work.workId} has no backing Issue (no IssueLink before it, no backing_issue) for comment ${op.comment_id} to be on`);
  state.issueComments.set(op.comment_id, work.workId);
  // A handle is never rebound: one summary per Work, one comment per Claim.
  if (op.claim_id === undefined ? seen.summary : seen.claims.has(op.claim_id)) {
    r.bad(`${what} rebinds ${op.claim_id === undefined ? `the summary comment of Work ${work.workId}` : `the comment of Claim ${op.claim_id}`}`);
  }
  if (op.claim_id === undefined) seen.summary = true;
  else seen.claims.add(op.claim_id);
  return raw;
}
