/**
 * Checked actions in the reducer: review dialogs (authority, exact targets,
 * stable request ids), what blocks `y`, publication outcomes and their
 * acknowledgements, and the idle refresh cadence with its pauses.
 */
import { describe, expect, it } from 'vitest';
import { blockers, dialogText } from '../../cli/tui/dialog.ts';
import { layout } from '../../cli/tui/layout.ts';
import { reduce } from '../../cli/tui/reducer.ts';
import { REFRESH_MS, rowsOf, uncertainAcks, type PublishResult, type TuiState } from '../../cli/tui/state.ts';
import { AUTHORITY, fresh, goTo, press, snapshot, workByKey } from './fixtures.ts';

const at = (s: TuiState, nodeKey: string) => goTo(s, `w:${workByKey(snapshot(), nodeKey).id}`, rowsOf(s));

function selectTasks(s: TuiState, n: number): TuiState {
  return press(s, ...Array.from({ length: n }, () => 'j '), 'g').state;
}

describe('review of a cancellation', () => {
  it('c on selected Work opens cancel-work naming the authority, request id and every full id; y publishes exactly those', () => {
    const s = selectTasks(fresh(), 2);
    const c = press(s, 'c');
    expect(c.effects).toEqual([]);
    const d = c.state.dialog!;
    expect(d.action).toBe('cancel_work');
    expect(d.requestId).toBe('tui-cancel_work-sess-1');
    expect(d.reason).toBe('operator_cancelled');
    const tasks = [workByKey(snapshot(), 'Task-01').id, workByKey(snapshot(), 'Task-02').id];
    expect(d.targets.map((t) => t.id)).toEqual(tasks);
    const text = dialogText(d, AUTHORITY, snapshot().repository, layout(c.state.viewport));
    const all = [...text.head, ...text.targets].join('\n');
    expect(all).toContain('authority: administrator, principal 1 (local principal, unauthenticated)');
    expect(all).toContain('queue: acme/app on git:/tmp/q#work-queue');
    expect(all).toContain('request id: tui-cancel_work-sess-1');
    for (const id of tasks) expect(all).toContain(id);
    expect(text.fits).toBe(true);

    const y = press(c.state, 'y');
    const reviewed = Object.fromEntries(tasks.map((id) => [id, { state: 'available', priority: 3 }])); // what publication checks
    expect(y.effects).toEqual([{ type: 'publish', plan: { action: 'cancel_work', requestId: 'tui-cancel_work-sess-1', reason: 'operator_cancelled', ids: tasks, priority: null, reviewed } }]);
    expect(y.state.dialog!.phase).toBe('publishing');
    // While publishing, keys do nothing (no second publish, no dismiss, no quit).
    expect(press(y.state, 'y', 'n', 'escape', 'q').effects).toEqual([]);
  });

  it('with nothing selected, c reviews the row under the cursor; a graph row alone is not a target', () => {
    const g = press(fresh(), 'c').state;
    expect(g.dialog).toBeNull();
    expect(g.message).toEqual({ tone: 'error', text: expect.stringMatching(/nothing to act on/) });
    const one = press(fresh(), 'j', 'c').state;
    expect(one.dialog!.targets.map((t) => t.id)).toEqual([workByKey(snapshot(), 'Task-01').id]);
  });

  it('n and Esc dismiss without publishing; each review gets a new request id, kept for the life of its dialog', () => {
    let s = press(fresh(), 'j', 'c').state;
    expect(s.dialog!.requestId).toBe('tui-cancel_work-sess-1');
    const n = press(s, 'x', 'r', 'j', 'n');
    expect(n.effects).toEqual([]);
    expect(n.state.dialog).toBeNull();
    expect(n.state.message?.text).toMatch(/nothing was published/);
    s = press(n.state, 'c').state;
    expect(s.dialog!.requestId).toBe('tui-cancel_work-sess-2');
    s = press(s, 'escape').state;
    expect(s.dialog).toBeNull();
    expect(s.selected.size).toBe(0);
  });

  it('selected Claims review cancel-claim; a Claim that no longer owns its Work blocks publication', () => {
    const snap = snapshot();
    const lint = workByKey(snap, 'lint');
    let s = press(at(fresh(), 'lint'), 'l', 'j', ' ', 'c').state;
    expect(s.dialog!.action).toBe('cancel_claims');
    expect(s.dialog!.targets).toEqual([expect.objectContaining({ kind: 'claim', id: lint.claims[0], problem: null })]);
    expect(dialogText(s.dialog!, AUTHORITY, null, layout(s.viewport)).targets.join('\n')).toContain(lint.id);
    const y = press(s, 'y');
    expect(y.effects).toEqual([{ type: 'publish', plan: expect.objectContaining({ action: 'cancel_claims', ids: lint.claims }) }]);

    const inspect = workByKey(snap, 'inspect');
    s = press(at(fresh(), 'inspect'), 'l', 'j', ' ', 'c').state;
    expect(s.dialog!.targets[0]!.problem).toBe('Claim already cancelled');
    const blocked = press(s, 'y');
    expect(blocked.effects).toEqual([]);
    expect(blocked.state.dialog!.phase).toBe('review');
    expect(blocked.state.message?.text).toMatch(/cannot publish: 1 target\(s\) cannot take this action/);
    expect(inspect.state).toBe('cancelled');
  });

  it('terminal Work cannot be cancelled again; Work and Claims cannot be mixed in one cancellation', () => {
    const done = press(at(fresh(), 'inspect'), 'c').state;
    expect(done.dialog!.targets[0]!.problem).toBe('already cancelled');
    expect(press(done, 'y').effects).toEqual([]);

    const mixed = press(at(fresh(), 'lint'), ' ', 'l', 'j', ' ', 'c').state;
    expect(mixed.dialog).toBeNull();
    expect(mixed.message?.text).toMatch(/mixes Work and Claims/);
  });

  it('a read-only source (--ledger) can review but never publish', () => {
    const s = press(fresh({ authority: { ...AUTHORITY, writable: false } }), 'j', 'c').state;
    expect(blockers(s.dialog!, s.authority, true)[0]).toMatch(/read-only/);
    expect(press(s, 'y').effects).toEqual([]);
  });
});

describe('review of a priority override', () => {
  it('p needs 1..5 before y; the override names the current and new class', () => {
    let s = selectTasks(fresh(), 2);
    s = press(s, 'p').state;
    expect(s.dialog!.action).toBe('reprioritize');
    expect(s.dialog!.requestId).toBe('tui-reprioritize-sess-1');
    expect(press(s, 'y').effects).toEqual([]);
    expect(press(s, 'y').state.message?.text).toMatch(/choose a priority/);
    s = press(s, '9', '0', '1').state;
    expect(s.dialog!.priority).toBe(1);
    expect(s.dialog!.targets[0]!.summary).toContain('P3 -> P1');
    s = press(s, '2').state;
    const y = press(s, 'y');
    expect(y.effects).toEqual([{ type: 'publish', plan: expect.objectContaining({ action: 'reprioritize', priority: 2, reason: 'operator_reprioritized', requestId: 'tui-reprioritize-sess-1' }) }]);
  });

  it('only available Work can be reprioritized: claimed Work and Claims are marked and block y', () => {
    const lint = workByKey(snapshot(), 'lint');
    const s = press(at(fresh(), 'lint'), ' ', 'l', 'j', ' ', 'p', '1').state;
    expect(s.dialog!.targets.map((t) => [t.kind, t.problem])).toEqual([
      ['work', 'claimed; only available Work can be reprioritized'],
      ['claim', 'a Claim; only Work can be reprioritized'],
    ]);
    expect(s.dialog!.targets[0]!.id).toBe(lint.id);
    expect(press(s, 'y').effects).toEqual([]);
  });
});

describe('the confirmation view must hold every target', () => {
  it('at 45x16 one Work fits and publishes; three do not, and y is refused until fewer are selected', () => {
    const one = press(fresh({ columns: 45, rows: 16 }), 'j', 'c');
    expect(dialogText(one.state.dialog!, AUTHORITY, 'acme/app', layout({ columns: 45, rows: 16 })).fits).toBe(true);
    expect(press(one.state, 'y').effects).toHaveLength(1);

    const three = press(selectTasks(fresh({ columns: 45, rows: 16 }), 3), 'c');
    const text = dialogText(three.state.dialog!, AUTHORITY, 'acme/app', layout({ columns: 45, rows: 16 }));
    expect(text.fits).toBe(false);
    expect(text.foot.join(' ')).toMatch(/CANNOT PUBLISH: not every target fits/);
    const y = press(three.state, 'y');
    expect(y.effects).toEqual([]);
    expect(y.state.message?.text).toMatch(/not every target fits/);
    // A larger terminal holds them: the same review can then publish.
    const resized = reduce(three.state, { type: 'resize', viewport: { columns: 120, rows: 30 } }).state;
    expect(press(resized, 'y').effects).toHaveLength(1);
  });
});

describe('publication outcomes', () => {
  function published(result: PublishResult) {
    const s = press(selectTasks(fresh(), 2), 'c', 'y');
    const effect = s.effects[0]!;
    if (effect.type !== 'publish') throw new Error('expected a publish effect');
    return reduce(s.state, { type: 'published', at: s.state.now + 10, plan: effect.plan, result });
  }

  it('committed: the dialog closes, the targets leave the selection, an acknowledgement is kept, and the view re-reads', () => {
    const r = published({ status: 'committed', commitId: 'q_abc' });
    expect(r.state.dialog).toBeNull();
    expect(r.state.selected.size).toBe(0);
    expect(r.state.acks).toHaveLength(1);
    expect(r.state.message?.text).toBe('committed tui-cancel_work-sess-1: cancel_work of 2 in q_abc');
    expect(r.effects).toEqual([{ type: 'load', watch: [] }]);
  });

  it('rejected: nothing was written; the selection stays for another try', () => {
    const r = published({ status: 'rejected', code: 'work_terminal', message: 'already cancelled' });
    expect(r.state.selected.size).toBe(2);
    expect(r.state.message).toEqual({ tone: 'error', text: 'not published tui-cancel_work-sess-1 (work_terminal): already cancelled' });
  });

  it('uncertain: the acknowledgement stays visible, later reads look the request up, and a found commit is recorded', () => {
    let r = published({ status: 'uncertain', code: 'store_write_failed', message: 'connection reset' });
    expect(r.state.message?.text).toMatch(/UNCERTAIN .*fairway explain --request-id tui-cancel_work-sess-1/);
    expect(r.effects).toEqual([{ type: 'load', watch: ['tui-cancel_work-sess-1'] }]);
    let s = r.state;
    // Many later acknowledgements do not push the uncertain one out.
    for (let i = 0; i < 12; i++) {
      const d = press({ ...s, read: { ...s.read, loading: false } }, 'j', 'c', 'y');
      const effect = d.effects[0]!;
      if (effect.type !== 'publish') throw new Error('expected a publish effect');
      r = reduce(d.state, { type: 'published', at: s.now, plan: effect.plan, result: { status: 'rejected', code: 'x', message: 'y' } });
      s = r.state;
    }
    expect(uncertainAcks(s).map((a) => a.requestId)).toEqual(['tui-cancel_work-sess-1']);
    expect(s.acks.length).toBeLessThanOrEqual(11);
    const snap = snapshot();
    s = reduce(s, { type: 'loaded', snapshot: { ...snap, committedRequests: { 'tui-cancel_work-sess-1': 'q_found' } } }).state;
    expect(uncertainAcks(s)[0]!.foundCommit).toBe('q_found');
  });
});

describe('reads: refresh every 10 s while idle, paused by search and review, stale on failure', () => {
  it('ticks read only when due, idle and not already reading', () => {
    let s = fresh();
    const t0 = s.read.lastAttemptAt!;
    expect(reduce(s, { type: 'tick', now: t0 + REFRESH_MS - 1 }).effects).toEqual([]);
    const due = reduce(s, { type: 'tick', now: t0 + REFRESH_MS });
    expect(due.effects).toEqual([{ type: 'load', watch: [] }]);
    expect(reduce(due.state, { type: 'tick', now: t0 + 2 * REFRESH_MS }).effects).toEqual([]);
    s = press(fresh(), '/').state;
    expect(reduce(s, { type: 'tick', now: t0 + 60_000 }).effects).toEqual([]);
    s = press(s, 'enter').state;
    expect(reduce(s, { type: 'tick', now: t0 + 60_000 }).effects).toHaveLength(1);
    s = press(fresh(), 'j', 'c').state;
    expect(reduce(s, { type: 'tick', now: t0 + 60_000 }).effects).toEqual([]);
  });

  it('r reads now (once at a time)', () => {
    const r = press(fresh(), 'r');
    expect(r.effects).toEqual([{ type: 'load', watch: [] }]);
    const again = press(r.state, 'r');
    expect(again.effects).toEqual([]);
    expect(again.state.message?.text).toMatch(/already in progress/);
  });

  it('a failed read keeps the previous view and records the error; the next read clears it', () => {
    const s = fresh();
    const failed = reduce(press(s, 'r').state, { type: 'load_failed', at: s.now + 1, code: 'store_read_failed', message: 'git: fatal' }).state;
    expect(failed.snapshot).toBe(s.snapshot);
    expect(failed.read).toEqual({ loading: false, lastAttemptAt: s.now + 1, error: { code: 'store_read_failed', message: 'git: fatal', at: s.now + 1 } });
    const ok = reduce(failed, { type: 'loaded', snapshot: snapshot() }).state;
    expect(ok.read.error).toBeNull();
  });
});

describe('nothing publishes on a stale view', () => {
  it('after a failed read the review opens on the kept view but y is refused until a read succeeds', () => {
    const s = fresh();
    const failed = reduce(press(s, 'r').state, { type: 'load_failed', at: s.now + 1, code: 'unsupported_protocol', message: 'record version undefined' }).state;
    const review = press(failed, 'j', 'c').state;
    expect(review.dialog!.targets).toHaveLength(1);
    const text = dialogText(review.dialog!, AUTHORITY, 'acme/app', layout(review.viewport), review.read.error);
    expect(text.foot.join(' ')).toMatch(/^CANNOT PUBLISH: the view is stale: the last read failed \(unsupported_protocol\)/);
    const y = press(review, 'y');
    expect(y.effects).toEqual([]);
    expect(y.state.dialog!.phase).toBe('review');
    expect(y.state.message?.text).toMatch(/cannot publish: the view is stale/);
    // Dismiss, read again (it succeeds), review again: now it publishes.
    const again = press(y.state, 'n', 'r');
    expect(again.effects).toEqual([{ type: 'load', watch: [] }]);
    const read = reduce(again.state, { type: 'loaded', snapshot: snapshot() }).state;
    expect(press(read, 'c', 'y').effects).toEqual([{ type: 'publish', plan: expect.objectContaining({ action: 'cancel_work', requestId: 'tui-cancel_work-sess-2' }) }]);
  });

  it('a y that arrives inside pasted text does not confirm a review (said so); y pressed on its own publishes', () => {
    const review = press(fresh(), 'j', 'c').state;
    expect(review.dialog!.phase).toBe('review');
    const paste = (from: TuiState, text: string) => {
      let s = from;
      const effects = [];
      for (const char of text) {
        const r = reduce(s, { type: 'key', key: { name: 'char', char, burst: true } });
        s = r.state;
        effects.push(...r.effects);
      }
      return { s, effects };
    };
    expect(paste(review, 'yes').effects).toEqual([]);
    const { s, effects } = paste(review, 'okay');
    expect(effects).toEqual([]);
    expect(s.dialog!.phase).toBe('review');
    expect(s.message?.text).toMatch(/a pasted y does not confirm/);
    expect(press(s, 'y').effects).toEqual([{ type: 'publish', plan: expect.objectContaining({ action: 'cancel_work' }) }]);
  });

  it('a read in flight when the review opened that then fails blocks the open review too', () => {
    const reading = press(fresh(), 'r', 'j', 'c').state;
    expect(reading.read.loading).toBe(true);
    const failed = reduce(reading, { type: 'load_failed', at: reading.now + 1, code: 'store_read_failed', message: 'fetch failed' }).state;
    expect(failed.dialog).not.toBeNull();
    expect(press(failed, 'y').effects).toEqual([]);
  });
});

describe('selections hidden by search are acted on', () => {
  it('c reviews every selected target, shown or hidden by the search, and y publishes them all', () => {
    const t1 = workByKey(snapshot(), 'Task-01');
    const lint = workByKey(snapshot(), 'lint');
    let s = press(fresh(), 'j', ' ', '/', 'lint', 'enter').state; // Task-01 selected, then hidden
    expect(rowsOf(s).some((r) => r.key === `w:${t1.id}`)).toBe(false);
    s = press(goTo(s, `w:${lint.id}`, rowsOf(s)), ' ', 'c').state;
    expect(s.dialog!.targets.map((t) => t.id)).toEqual([lint.id, t1.id]); // in admission order: lint came with the first commit
    const text = dialogText(s.dialog!, AUTHORITY, 'acme/app', layout(s.viewport)).targets.join('\n');
    expect(text).toContain(t1.id);
    expect(text).toContain(lint.id);
    expect(press(s, 'y').effects).toEqual([{ type: 'publish', plan: expect.objectContaining({ action: 'cancel_work', ids: expect.arrayContaining([t1.id, lint.id]) }) }]);
  });
});

describe('one request id per reviewed action', () => {
  it('is kept through a refused y, a resize, a read that completes during the review and a priority change, and is the one published', () => {
    let s = press(fresh({ columns: 45, rows: 16 }), 'r', 'j ', 'j ', 'j ', 'p').state; // a read in flight; three Work
    const id = s.dialog!.requestId;
    expect(id).toBe('tui-reprioritize-sess-1');
    expect(press(s, 'y').effects).toEqual([]); // refused: no priority yet
    s = press(s, 'y', '2').state;
    s = reduce(s, { type: 'loaded', snapshot: { ...snapshot(), readAt: s.now + 1 } }).state;
    expect(press(s, 'y').effects).toEqual([]); // refused: the targets do not fit at 45x16
    s = reduce(s, { type: 'resize', viewport: { columns: 120, rows: 30 } }).state;
    s = press(s, '1').state;
    expect(s.dialog!.requestId).toBe(id);
    const y = press(s, 'y');
    expect(y.effects).toEqual([{ type: 'publish', plan: expect.objectContaining({ requestId: id, priority: 1, ids: [1, 2, 3].map((n) => workByKey(snapshot(), `Task-0${n}`).id) }) }]);
  });
});
