/**
 * Pure parts of backing-Issue projection: the label set and status-label replacement, the
 * status mapping, escaping of hostile text, templates, the journal fold and planning.
 */
import { describe, expect, it } from 'vitest';
import { parseWorkQueueSettings } from '../../lib/config/aw.ts';
import { policyOf, TestQueue } from '../../tests/acceptance/queue.ts';
import { completedClaim } from '../../tests/conformance/forbidden.ts';
import { Projection, replayLedger } from '../replay/index.ts';
import { result } from '../requests/lifecycle.ts';
import { reconciler } from '../../tests/acceptance/queue.ts';
import { desiredIssue } from './desired.ts';
import { inlineText, plainTitle } from './escape.ts';
import { journalLines, readJournal, type JournalRecord } from './journal.ts';
import { GITHUB_LABEL_LIMIT, ISSUE_STATUSES, labelChanges, projectorLabels } from './labels.ts';
import { missingBindings, planWork } from './plan.ts';
import { admissionCompletionPolicy, holdsTargetAuthority } from '../replay/ops/projector-rules.ts';
import { render, type Templates } from './render.ts';
import { issueStatus } from './status.ts';
import { issueTemplates } from '../../lib/issues/templates.ts';

const T: Templates = { 'issue-body': '{{title}} {{work_id}}\n{{footer}}', 'issue-summary': '{{status}} {{status_label}}\n{{footer}}', 'issue-claim': '{{claim_id}} {{run}}\n{{footer}}' };

describe('settings: issues label prefix', () => {
  it('whitespace runs become one hyphen, trimmed; the 33-byte bound applies after normalization', () => {
    expect(parseWorkQueueSettings({ issues: { label: '  my  queue\tteam ' } }).issues).toEqual({ enabled: true, label: 'my-queue-team' });
    expect(parseWorkQueueSettings({ issues: {} }).issues).toEqual({ enabled: true, label: 'work' });
    const e = (() => { try { parseWorkQueueSettings({ issues: { label: `${'x'.repeat(30)} ${'y'.repeat(3)}` } }); return null; } catch (err) { return err; } })();
    expect(e).toMatchObject({ code: 'settings_invalid', path: 'work_queue.issues.label' });
    expect(() => parseWorkQueueSettings({ issues: { label: 'a\u0000b' } })).toThrow(/control characters/);
    expect(() => parseWorkQueueSettings({ issues: { label: 'x', color: 'red' } })).toThrow(/unknown property/);
  });

  it('the longest status label of a 33-byte prefix fits GitHub\'s 50-character limit', () => {
    const longest = Math.max(...projectorLabels('x'.repeat(33)).map((l) => [...l].length));
    expect(longest).toBeLessThanOrEqual(GITHUB_LABEL_LIMIT);
  });
});

describe('labels', () => {
  it('the status set is derived from Work states and barriers', () => {
    expect([...ISSUE_STATUSES]).toEqual(['queued', 'running', 'verifying', 'needs-review', 'done', 'failed', 'cancelled']);
  });

  it('only own status labels are replaced; unrelated and other-prefix labels stay', () => {
    expect(labelChanges('work', 'done', ['bug', 'work:running', 'WORK:Queued', 'cookie:running', 'work-x:done'])).toEqual({ add: ['work', 'work:done'], remove: ['work:running', 'WORK:Queued'] });
    expect(labelChanges('work', 'done', ['work', 'Work:Done'])).toEqual({ add: [], remove: [] });
  });
});

describe('escaping hostile text', () => {
  const hostile = 'Ship it @octo-org/team [click](https://evil.example) <img src=x onerror=alert(1)> `code` ![i](http://x) #12 https://evil.example\n# Heading';
  it('submitted text becomes one inert inline code span: no link, mention, HTML or heading survives', () => {
    const s = inlineText(hostile);
    expect(s.startsWith('` ') && s.endsWith(' `')).toBe(true);
    const inner = s.slice(2, -2);
    expect(inner).not.toContain('`');
    expect(inner).not.toContain('\n');
    expect(inner).toContain('@octo-org/team');
  });
  it('titles are plain single-line text without controls or bidi overrides', () => {
    expect(plainTitle('a\u202Eb\u0000c\nd')).toBe('abc d');
    expect([...plainTitle('x'.repeat(500))].length).toBe(200);
  });
  it('a hostile payload title and node key reach the rendered body only inside code spans', () => {
    const q = new TestQueue(policyOf(), [{ node_key: '@admin <b>x</b>', payload: { title: hostile } }]);
    const p = new Projection(q.state);
    const work = [...p.works()][0]!;
    const d = desiredIssue(p, work, { prefix: 'work', host: 'github.com', runUrl: null, ledgerVersion: null, templates: issueTemplates() });
    const outside = d.body.replace(/` [^`]* `/g, '');
    expect(outside).not.toMatch(/@admin|<b>|evil\.example|onerror/);
    expect(d.body).toContain('no run to link');
  });
});

describe('templates', () => {
  it('every placeholder must be provided and every template carries the footer', () => {
    expect(render(T, 'issue-summary', { status: 'done', status_label: 'x', footer: 'F' })).toBe('done x\nF\n');
    expect(() => render(T, 'issue-summary', { status: 'done', footer: 'F' })).toThrow(/status_label/);
    expect(() => render({ ...T, 'issue-claim': '{{claim_id}}' }, 'issue-claim', { claim_id: 'c', footer: '' })).toThrow(/footer/);
  });
});

describe('status mapping', () => {
  it('Completion projects verifying; verified PR delivery needs-review; other verified delivery done', () => {
    for (const [outputs, status] of [[[{ type: 'create_pull_request' }], 'needs-review'], [[{ type: 'create_issue' }], 'done']] as const) {
      const q = new TestQueue(policyOf(), [{ node_key: 'n', payload: {} }]);
      const { workId } = completedClaim(q, '301');
      const replayed = () => replayLedger(new TextEncoder().encode(q.text()));
      expect(issueStatus(replayed(), q.state.works.get(workId)!)).toBe('verifying');
      q.w.publish('result', reconciler, q.tick(), result(q.state, workId, { outputs: outputs as never }, q.t, 'r1'));
      const p = replayed();
      expect(issueStatus(p, p.work(workId)!)).toBe(status);
      // Without the Result's text (as after compaction) the PR-ness is unknown: an already projected status is kept.
      const blind = new Projection(q.state);
      expect(desiredIssue(blind, blind.work(workId)!, { prefix: 'work', host: 'github.com', runUrl: null, ledgerVersion: null, templates: issueTemplates() }).statusKnown).toBe(false);
    }
  });
});

describe('journal and planning', () => {
  const intent: JournalRecord = { v: 1, kind: 'intent', key: 'issue:w', target: 'issue', work_id: 'w', repository: 'o/r', owner: 'run-1', at: 1 };
  const resource = { kind: 'issue' as const, host: 'github.com', repository: 'o/r', repository_id: '1', resource_id: '9', number: '3' };
  const desired = { workId: 'w', status: 'running' as const, statusKnown: true, title: 't', body: 'b', summary: { body: 's', digest: 'd1' }, claims: [] };

  it('an intent without receipt is pending and never planned for creation again', () => {
    const j = readJournal(new TextEncoder().encode(journalLines([intent])));
    expect(planWork(desired, j, 'work', null).issue).toEqual({ action: 'pending', key: 'issue:w', reason: 'issue_creation_uncertain' });
  });

  it('a second intent while one is pending, a receipt without intent, or a torn line is journal_invalid', () => {
    const enc = (r: JournalRecord[]) => new TextEncoder().encode(journalLines(r));
    expect(() => readJournal(enc([intent, { ...intent, owner: 'run-2' }]))).toThrow(expect.objectContaining({ code: 'journal_invalid' }));
    expect(() => readJournal(enc([{ v: 1, kind: 'receipt', key: 'issue:w', resource }]))).toThrow(expect.objectContaining({ code: 'journal_invalid' }));
    expect(() => readJournal(new TextEncoder().encode(journalLines([intent]).slice(0, -1)))).toThrow(expect.objectContaining({ code: 'journal_invalid' }));
    expect(() => readJournal(enc([intent, { v: 1, kind: 'rejected', key: 'issue:w', owner: 'someone-else', http_status: 422, reason: 'x' }]))).toThrow(expect.objectContaining({ code: 'journal_invalid' }));
  });

  it('a definitive rejection releases the intent; a receipt binds it; a changed status plans label changes only', () => {
    const released = readJournal(new TextEncoder().encode(journalLines([intent, { v: 1, kind: 'rejected', key: 'issue:w', owner: 'run-1', http_status: 403, reason: 'github_rate_limited' }])));
    expect(planWork(desired, released, 'work', null).issue.action).toBe('create');
    const bound = readJournal(new TextEncoder().encode(journalLines([intent, { v: 1, kind: 'receipt', key: 'issue:w', resource, status: 'queued' }])));
    expect(planWork(desired, bound, 'work', 'unchanged').issue).toEqual({ action: 'labels', key: 'issue:w', resource, status: 'running', add: ['work', 'work:running'], remove: ['work:queued'] });
    expect(planWork(desired, bound, 'work', 'missing').issue).toEqual({ action: 'pending', key: 'issue:w', reason: 'issue_missing' });
  });
});

describe('projector rules, closure and journal marks (pure)', () => {
  const who = { principal: '1001', workflow: '.github/workflows/queue.yml', ref: 'a'.repeat(40) };
  const ruleOf = (extra: Record<string, unknown> = {}) => ({ principal: '1001', workflow: who.workflow, ref: who.ref, pools: ['default'], repositories: ['owner/repo'], ...extra });
  const policy = (rules: unknown[]) => ({ pools: { default: {} }, projectors: rules }) as never;

  it('close-on-result only when every rule matching the run, pool and repository says so; a run without a workflow matches none', () => {
    expect(admissionCompletionPolicy(policy([ruleOf({ completion_policy: 'close-on-result' })]), who, 'default', 'owner/repo')).toBe('close-on-result');
    expect(admissionCompletionPolicy(policy([ruleOf({ completion_policy: 'close-on-result' }), ruleOf()]), who, 'default', 'owner/repo')).toBe('keep-open');
    expect(admissionCompletionPolicy(policy([ruleOf({ completion_policy: 'close-on-result' })]), { ...who, ref: 'b'.repeat(40) }, 'default', 'owner/repo')).toBe('keep-open');
    expect(admissionCompletionPolicy(policy([ruleOf({ completion_policy: 'close-on-result' })]), { ...who, workflow: null }, 'default', 'owner/repo')).toBe('keep-open');
    expect(admissionCompletionPolicy(undefined, who, 'default', 'owner/repo')).toBe('keep-open');
  });

  it('target authority: the queue repository\'s own Issues need no rule; another repository or a pre-existing Issue need one (with the exact grant)', () => {
    const granted = { kind: 'issue', host: 'github.com', repository: 'owner/repo', repository_id: '1', resource_id: '9', number: '3' };
    expect(holdsTargetAuthority(undefined, 'owner/repo', who, { pool: 'default', repository: 'owner/repo' })).toBe(true);
    expect(holdsTargetAuthority(undefined, 'owner/repo', who, { pool: 'default', repository: 'owner/other' })).toBe(false);
    expect(holdsTargetAuthority(policy([ruleOf({ repositories: ['owner/other'] })]), 'owner/repo', who, { pool: 'default', repository: 'owner/other' })).toBe(true);
    expect(holdsTargetAuthority(policy([ruleOf()]), 'owner/repo', who, { pool: 'default', repository: 'owner/repo', backingIssue: granted })).toBe(false);
    expect(holdsTargetAuthority(policy([ruleOf({ backing_issues: [granted] })]), 'owner/repo', who, { pool: 'default', repository: 'owner/repo', backingIssue: granted })).toBe(true);
  });

  it('closure is planned only for a done Issue seen open and not closed before; one already closed is recorded without a write', () => {
    const resource = { kind: 'issue' as const, host: 'github.com', repository: 'o/r', repository_id: '1', resource_id: '9', number: '3' };
    const intent: JournalRecord = { v: 1, kind: 'intent', key: 'issue:w', target: 'issue', work_id: 'w', repository: 'o/r', owner: 'run-1', at: 1 };
    const bound = readJournal(new TextEncoder().encode(journalLines([intent, { v: 1, kind: 'receipt', key: 'issue:w', resource, status: 'done' }])));
    const done = { workId: 'w', status: 'done' as const, statusKnown: true, title: 't', body: 'b', summary: { body: 's', digest: 'd1' }, claims: [] };
    expect(planWork(done, bound, 'work', { labels: ['work', 'work:done'], state: 'open' }, { closeOnResult: true }).close).toBe('close');
    expect(planWork(done, bound, 'work', { labels: ['work', 'work:done'], state: 'closed' }, { closeOnResult: true }).close).toBe('record');
    expect(planWork(done, bound, 'work', { labels: ['work', 'work:done'], state: 'open' }, { closeOnResult: false }).close).toBeUndefined();
    expect(planWork({ ...done, status: 'needs-review' }, bound, 'work', { labels: [], state: 'open' }, { closeOnResult: true }).close).toBeUndefined();
    const closed = readJournal(new TextEncoder().encode(journalLines([intent, { v: 1, kind: 'receipt', key: 'issue:w', resource, status: 'done' }, { v: 1, kind: 'written', key: 'issue:w', state: 'closed' }])));
    expect(planWork(done, closed, 'work', { labels: ['work', 'work:done'], state: 'open' }, { closeOnResult: true }).close).toBeUndefined();
    expect(planWork(done, bound, 'work', null, { authorized: false }).issue).toEqual({ action: 'pending', key: 'issue:w', reason: 'projector_not_authorized' });
  });

  it('journal: a ledger link binds without an intent; missing and seen marks need a bound target; a write clears them', () => {
    const resource = { kind: 'issue' as const, host: 'github.com', repository: 'o/r', repository_id: '1', resource_id: '9', number: '3' };
    const enc = (r: JournalRecord[]) => new TextEncoder().encode(journalLines(r));
    const linked: JournalRecord = { v: 1, kind: 'linked', key: 'issue:w', work_id: 'w', repository: 'o/r', resource };
    const j = readJournal(enc([linked, { v: 1, kind: 'missing', key: 'issue:w', http_status: 404 }, { v: 1, kind: 'seen', key: 'issue:w', labels: ['x'], state: 'open' }]));
    expect(j.entries.get('issue:w')).toMatchObject({ phase: 'bound', linked: true, missing: true, seen: { labels: ['x'], state: 'open' } });
    const cleared = readJournal(enc([linked, { v: 1, kind: 'missing', key: 'issue:w', http_status: 404 }, { v: 1, kind: 'written', key: 'issue:w', status: 'queued' }]));
    expect(cleared.entries.get('issue:w')!.missing).toBeUndefined();
    expect(() => readJournal(enc([{ v: 1, kind: 'missing', key: 'issue:w', http_status: 404 }]))).toThrow(expect.objectContaining({ code: 'journal_invalid' }));
    expect(() => readJournal(enc([linked, linked]))).toThrow(expect.objectContaining({ code: 'journal_invalid' }));
    expect(() => readJournal(enc([linked, { v: 1, kind: 'written', key: 'issue:w', state: 'open' as never }]))).toThrow(expect.objectContaining({ code: 'journal_invalid' }));
    // A ledger-linked Issue publishes no IssueLink of its own (the ledger bound it at admission).
    const q = new TestQueue(policyOf(), [{ node_key: 'n', payload: {} }]);
    const w = [...new Projection(q.state).works()][0]!.workId;
    const own = readJournal(enc([{ ...linked, key: `issue:${w}`, work_id: w }]));
    expect(missingBindings(new Projection(q.state), own, w, 'a'.repeat(40))).toEqual([]);
  });
});
