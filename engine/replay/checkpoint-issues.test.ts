/**
 * The backing-Issue checkpoint extensions are validated like the records they summarise
 * (replay/checkpoint-issues.ts): a checkpoint whose `issue_links` or `epoch_projectors` holds a
 * state replay would have refused is `checkpoint_invalid` (one forbidden checkpoint per rule,
 * digests and fingerprints recomputed so only the state is at fault, replayed as bytes), and the
 * one-Work-per-Issue index is rebuilt on restore, so a later commit gets replay's own verdict
 * instead of a crash.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize, sha256Hex } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { requestFingerprint } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { buildCommit } from '../requests/build.ts';
import { operationsRequest } from '../requests/operations.ts';
import type { QueueOperation } from '../schema/index.ts';
import { WORK_STATE_KEYS } from './checkpoint-read.ts';
import { REPOSITORY } from '../../tests/acceptance/queue.ts';
import { replayBytes } from '../../tests/support/bytes.ts';
import { backingIssuesLedger, checkpointOf, CREATED_ISSUE, editCheckpoint, GRANTED_ISSUE } from '../../tests/support/checkpoints.ts';
import { issueIn, projectorActor, RULE_REF } from '../../tests/issues/rules.ts';

function codeOf(ledger: string): string {
  try {
    replayBytes(ledger);
    return 'accepted';
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
}

const fixture = backingIssuesLedger();
const { x, b, d, claim } = fixture;
const ledger = checkpointOf(fixture.ledger);

type Links = Record<string, JsonObject[]>;
const link = (work: string, resource: JsonObject, extra: JsonObject = {}): JsonObject => ({ kind: 'IssueLink', work_id: work, resource, projector_ref: RULE_REF, ...extra });
const comment = (work: string, id: string, extra: JsonObject = {}): JsonObject => ({ kind: 'IssueComment', work_id: work, comment_id: id, projector_ref: RULE_REF, ...extra });

/** The checkpoint with its `issue_links` edited. */
function withLinks(edit: (links: Links) => void): string {
  return editCheckpoint(ledger, (state) => edit(state.issue_links as unknown as Links));
}

/** The checkpoint with its `epoch_projectors` edited. */
function withProjectors(edit: (projectors: Record<string, JsonObject[]>) => void): string {
  return editCheckpoint(ledger, (state) => edit(state.epoch_projectors as unknown as Record<string, JsonObject[]>));
}

/** One commit of `operations` by the projector, appended to `text`. */
function thenProject(text: string, operations: JsonObject[]): string {
  const p = replayBytes(text);
  const built = operationsRequest('observe', operations as unknown as QueueOperation[]);
  const at = p.state.commits.at(-1)!.at + 1000;
  const commit = buildCommit(p.state, { id: 'then', kind: 'observe', parameters: built.parameters, actor: projectorActor, at, operations: built.operations });
  return `${text}${canonicalize(commit as unknown as JsonValue)}\n`;
}

describe('checkpoint issue_links are restored only as replay would have left them', () => {
  it('the honest checkpoint (resealed, unedited) restores its records and the linked-Issue index', () => {
    const p = replayBytes(withLinks(() => undefined));
    expect(p.state.issueLinks.get(x)!.map((r) => r.kind)).toEqual(['IssueLink', 'IssueComment', 'IssueComment']);
    expect([...p.state.linkedIssues.values()]).toEqual([x]);
  });

  const forbidden: Array<[string, (links: Links) => void]> = [
    ['a record with an unknown member', (l) => { l[x]![1]!.zz_unknown = 1; }],
    ['a record that is neither IssueLink nor IssueComment', (l) => { l[d] = [{ kind: 'WorkCancellation', work_id: d, reason: 'drain' }]; }],
    ['an IssueLink missing its resource', (l) => { l[d] = [{ kind: 'IssueLink', work_id: d, projector_ref: RULE_REF }]; }],
    ['a record whose work_id is not its key', (l) => { l[d] = [comment(x, '94')]; }],
    ['a second IssueLink on one Work', (l) => { l[x]!.push(link(x, issueIn(REPOSITORY, 12))); }],
    ['an IssueLink to a pull request', (l) => { l[d] = [link(d, { ...issueIn(REPOSITORY, 13), kind: 'pull_request' })]; }],
    ['two Works linked to one Issue', (l) => { l[d] = [link(d, CREATED_ISSUE)]; }],
    ['a link to the Issue another Work was admitted with', (l) => { l[d] = [link(d, GRANTED_ISSUE)]; }],
    ['a Work admitted with a backing Issue linked to another', (l) => { l[b]!.unshift(link(b, issueIn(REPOSITORY, 14))); }],
    ['a second summary comment of one Work', (l) => { l[x]!.push(comment(x, '95')); }],
    ['a second comment of one Claim', (l) => { l[x]!.push(comment(x, '96', { claim_id: claim })); }],
    ['a comment id recorded twice for one Work', (l) => { l[b]!.push(comment(b, '93', { claim_id: claim })); }],
    ['a comment naming another Work\'s Claim', (l) => { l[d] = [comment(d, '97', { claim_id: claim })]; }],
    ['a comment whose authority Claim belongs to another Work', (l) => { l[d] = [comment(d, '98', { authority_claim_id: claim })]; }],
    ['an IssueLink naming another Work\'s Claim', (l) => { l[d] = [link(d, issueIn(REPOSITORY, 15), { claim_id: claim })]; }],
    ['a Claim that does not exist', (l) => { l[d] = [comment(d, '99', { claim_id: 'c_missing' })]; }],
    ['a comment id recorded for two Works', (l) => { l[d] = [link(d, issueIn(REPOSITORY, 17)), comment(d, String(l[x]![1]!.comment_id))]; }],
    ['a comment on a Work with no backing Issue', (l) => { l[d] = [comment(d, '90')]; }],
    ['a comment before its Work\'s IssueLink', (l) => { l[d] = [comment(d, '90'), link(d, issueIn(REPOSITORY, 17))]; }],
  ];
  it('control: a Work linked to its own Issue with its own comment restores', () => {
    expect(codeOf(withLinks((l) => { l[d] = [link(d, issueIn(REPOSITORY, 17)), comment(d, '90')]; }))).toBe('accepted');
  });

  it('after restore, a comment handle a restored record holds is issue_comment_duplicate for any Work (the comment index is rebuilt)', () => {
    const p = replayBytes(ledger);
    const held = String(p.state.issueLinks.get(x)![1]!.comment_id);
    expect(p.state.issueComments.get(held)).toBe(x);
    expect(codeOf(thenProject(ledger, [link(d, issueIn(REPOSITORY, 18)), comment(d, held)]))).toBe('issue_comment_duplicate');
    expect(codeOf(thenProject(ledger, [link(d, issueIn(REPOSITORY, 18)), comment(d, '189')]))).toBe('accepted');
  });
  for (const [name, edit] of forbidden) {
    it(`${name} is checkpoint_invalid`, () => expect(codeOf(withLinks(edit))).toBe('checkpoint_invalid'));
  }

  it('two Works admitted with one backing Issue (receipts recomputed) is checkpoint_invalid', () => {
    const text = editCheckpoint(ledger, (state) => {
      const works = state.works as Record<string, JsonObject>;
      works[d]!.backing_issue = GRANTED_ISSUE;
      // Reseal the admitting submit's receipt so only the one-Work-per-Issue rule can fail.
      const ordinal = (works[d]!.position as { commit: number }).commit;
      const nodes = Object.values(works)
        .filter((w) => (w.position as { commit: number }).commit === ordinal)
        .sort((p, q) => (p.position as { operation: number }).operation - (q.position as { operation: number }).operation)
        .map((w) => Object.fromEntries(Object.entries(w).filter(([k]) => !WORK_STATE_KEYS.has(k))));
      const receipt = (state.requests as JsonObject[])[ordinal]!;
      receipt.parameters_digest = sha256Hex(canonicalize({ nodes } as JsonValue));
      receipt.fingerprint = requestFingerprint(receipt.actor!, String(receipt.kind), { nodes } as JsonValue);
    });
    expect(codeOf(text)).toBe('checkpoint_invalid');
  });

  it('after restore, a link to an Issue a restored IssueLink holds is issue_link_conflict, not a crash', () => {
    expect(codeOf(thenProject(ledger, [link(d, CREATED_ISSUE)]))).toBe('issue_link_conflict');
    expect(codeOf(thenProject(ledger, [link(d, GRANTED_ISSUE)]))).toBe('issue_link_conflict');
    expect(codeOf(thenProject(ledger, [link(d, issueIn(REPOSITORY, 16))]))).toBe('accepted');
  });

  it('a record without its resource followed by a later IssueLink is checkpoint_invalid at the root (was a TypeError in the link)', () => {
    // The later commit is built on the honest checkpoint; the root's id does not depend on its state.
    const later = thenProject(ledger, [link(d, issueIn(REPOSITORY, 17))]).slice(ledger.length);
    const text = withLinks((l) => { l[x] = [{ kind: 'IssueLink' }]; });
    expect(codeOf(`${text}${later}`)).toBe('checkpoint_invalid');
  });
});

describe('checkpoint epoch_projectors are an earlier epoch\'s valid rules', () => {
  it('the honest checkpoint restores epoch-1\'s rules as that epoch\'s Policy record', () => {
    const p = replayBytes(withProjectors(() => undefined));
    expect(p.state.policyHistory.map((h) => [h.epoch, (h.policy.projectors as unknown[] | undefined)?.length ?? 0])).toEqual([['epoch-1', 1], ['epoch-2', 0], ['epoch-3', 1]]);
  });

  const rule = (e: Record<string, JsonObject[]>) => e['epoch-1']![0]!;
  const forbidden: Array<[string, (e: Record<string, JsonObject[]>) => void]> = [
    ['a rule with an unknown member', (e) => { rule(e).zz_unknown = 1; }],
    ['a rule with an unknown member in a granted Issue', (e) => { ((rule(e).backing_issues as JsonObject[])[0]!).zz_unknown = 1; }],
    ['an empty rule list', (e) => { e['epoch-1'] = []; }],
    ['an incoherent rule (workflow outside .github/workflows)', (e) => { rule(e).workflow = 'queue.yml'; }],
    ['an incoherent rule (grant outside its repositories)', (e) => { rule(e).repositories = [REPOSITORY]; }],
    ['an epoch that was never installed', (e) => { e['epoch-9'] = e['epoch-1']!; }],
    ['the current epoch (its rules are the checkpoint policy)', (e) => { e['epoch-3'] = e['epoch-1']!; }],
    ['an earlier epoch under which no restored Work was admitted', (e) => { e['epoch-2'] = e['epoch-1']!; }],
  ];
  for (const [name, edit] of forbidden) {
    it(`${name} is checkpoint_invalid`, () => expect(codeOf(withProjectors(edit))).toBe('checkpoint_invalid'));
  }
});
