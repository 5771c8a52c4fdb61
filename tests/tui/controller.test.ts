/**
 * The controller between reducer and backend (reads, publications, quit,
 * idle ticks) with a scripted backend, and ink key normalization.
 */
import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import type { TuiBackend } from '../../cli/tui/backend.ts';
import { TuiController } from '../../cli/tui/controller.ts';
import { fromInk } from '../../cli/tui/keys.ts';
import { initialState, REFRESH_MS, unsettledLines } from '../../cli/tui/state.ts';
import { AUTHORITY, T0, keys, snapshot } from './fixtures.ts';

function scripted(loads: Array<() => Promise<ReturnType<typeof snapshot>>>, publish: TuiBackend['publish'] = async () => ({ status: 'committed', commitId: 'q_x' })) {
  const calls: string[][] = [];
  const backend: TuiBackend = {
    authority: AUTHORITY,
    load: (watch) => {
      calls.push([...watch]);
      return (loads.shift() ?? (() => Promise.resolve(snapshot())))();
    },
    publish,
  };
  return { backend, calls };
}

function controller(backend: TuiBackend, clock: { t: number }, onQuit?: () => void) {
  const ticks: Array<() => void> = [];
  const c = new TuiController(initialState({ session: 's', now: clock.t, viewport: { columns: 120, rows: 30 }, authority: AUTHORITY }), backend, {
    now: () => clock.t,
    onQuit,
    setInterval: (fn) => ticks.push(fn),
    clearInterval: () => ticks.splice(0),
  });
  return { c, tick: () => ticks.forEach((f) => f()), ticks };
}

describe('TuiController', () => {
  it('reads on start and again when a tick finds the view 10 s old; a failed read becomes a stale status', async () => {
    const clock = { t: T0 };
    const { backend, calls } = scripted([() => Promise.resolve(snapshot()), () => Promise.reject(Object.assign(new Error('fetch failed'), { code: 'store_read_failed' }))]);
    const { c, tick } = controller(backend, clock);
    let renders = 0;
    c.subscribe(() => (renders += 1));
    c.start();
    await c.idle();
    expect(c.getState().snapshot).not.toBeNull();
    clock.t = snapshot().readAt + REFRESH_MS - 1;
    tick();
    expect(calls).toHaveLength(1);
    clock.t += 1;
    tick();
    await c.idle();
    expect(calls).toHaveLength(2);
    expect(c.getState().read.error).toEqual({ code: 'store_read_failed', message: 'fetch failed', at: clock.t });
    expect(c.getState().snapshot).not.toBeNull();
    expect(renders).toBeGreaterThanOrEqual(3);
  });

  it('publishes a reviewed action, then re-reads; a publish that throws is reported as uncertain', async () => {
    const clock = { t: T0 };
    const { backend, calls } = scripted([], async () => {
      throw new Error('socket hang up');
    });
    const { c } = controller(backend, clock);
    c.start();
    await c.idle();
    for (const key of keys('j', 'c', 'y')) c.dispatch({ type: 'key', key });
    await c.idle();
    // A backend that throws (the real one never does) is a bug: internal_error, said to be one.
    expect(c.getState().acks.map((a) => a.result)).toEqual([{ status: 'uncertain', code: 'internal_error', message: expect.stringMatching(/^Error: socket hang up \(this is a bug in Fairway/) }]);
    expect(calls.at(-1)).toEqual(['tui-cancel_work-s-1']);
    // Still uncertain when the browser closes: said again on the main screen.
    expect(unsettledLines(c.getState())).toEqual(['fairway tui: UNCERTAIN request tui-cancel_work-s-1 (cancel_work x1): check with: fairway explain --request-id tui-cancel_work-s-1']);
  });

  it('a publication during a read that may predate it reads once more, so the view shows the committed action', async () => {
    const clock = { t: T0 };
    let release: (snap: ReturnType<typeof snapshot>) => void = () => undefined;
    const slow = () => new Promise<ReturnType<typeof snapshot>>((resolve) => (release = resolve));
    const { backend, calls } = scripted([() => Promise.resolve(snapshot()), slow]);
    const { c } = controller(backend, clock);
    c.start();
    await c.idle();
    c.dispatch({ type: 'key', key: { name: 'char', char: 'r' } }); // a read starts (slow remote)...
    expect(calls).toHaveLength(2);
    for (const key of keys('j', 'c', 'y')) c.dispatch({ type: 'key', key }); // ...and an action commits meanwhile
    await new Promise((r) => setTimeout(r, 0));
    expect(c.getState().acks.map((a) => a.result.status)).toEqual(['committed']);
    release(snapshot()); // the read that started before the commit completes
    await c.idle();
    expect(calls).toHaveLength(3); // read again at once, not 10 s later
    expect(c.getState().read.loading).toBe(false);
    c.dispatch({ type: 'tick', now: clock.t });
    await c.idle();
    expect(calls).toHaveLength(3); // and only once
  });

  it('q stops the ticks and calls onQuit', async () => {
    let quit = 0;
    const { backend } = scripted([]);
    const { c, ticks } = controller(backend, { t: T0 }, () => (quit += 1));
    c.start();
    await c.idle();
    c.dispatch({ type: 'key', key: { name: 'char', char: 'q' } });
    expect(quit).toBe(1);
    expect(ticks).toHaveLength(0);
  });
});

describe('fromInk', () => {
  const key = (o: Partial<Key> = {}): Key => ({
    upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false,
    return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false,
    super: false, hyper: false, capsLock: false, numLock: false, ...o,
  });

  it('maps special keys and splits characters that arrive together, marking them as a burst', () => {
    expect(fromInk('', key({ downArrow: true }))).toEqual([{ name: 'down' }]);
    expect(fromInk('', key({ pageUp: true }))).toEqual([{ name: 'pageup' }]);
    expect(fromInk('', key({ escape: true, meta: true }))).toEqual([{ name: 'escape' }]);
    expect(fromInk('\r', key({ return: true }))).toEqual([{ name: 'enter' }]);
    expect(fromInk('', key({ delete: true }))).toEqual([{ name: 'backspace' }]);
    expect(fromInk('j', key())).toEqual([{ name: 'char', char: 'j' }]);
    // Characters that arrive together (a paste) are marked: a pasted y never confirms a review.
    expect(fromInk('jj ', key())).toEqual([{ name: 'char', char: 'j', burst: true }, { name: 'char', char: 'j', burst: true }, { name: 'char', char: ' ', burst: true }]);
    expect(fromInk('c', key({ ctrl: true }))).toEqual([]);
    expect(fromInk('x', key({ meta: true }))).toEqual([]);
  });
});
