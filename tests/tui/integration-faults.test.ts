/**
 * The real browser (`startTui` on a fake terminal, a real Git queue) when things go wrong
 * or change under it: a ledger that becomes invalid between reads, a terminal resized
 * below 45x16 while running, the idle refresh and its pause during review on the real
 * timer, and the size and terminal checks at start.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { storeBackend, type TuiBackend } from '../../cli/tui/backend.ts';
import { startTui } from '../../cli/tui/run.ts';
import { storeFor } from '../../cli/source.ts';
import { REFRESH_MS, type TuiState } from '../../cli/tui/state.ts';
import type { LedgerStore } from '../../lib/store/types.ts';
import { ProtocolError } from '../../engine/errors.ts';
import { FakeStdin, FakeStdout, cli, git, projectRepo, typer, until } from './fake-terminal.ts';

let repo: string;

beforeEach(() => {
  repo = projectRepo();
});

async function submitOne(nodeKey: string): Promise<void> {
  const file = join(repo, '..', `${repo.split('/').at(-1)}-${nodeKey}.json`);
  writeFileSync(file, JSON.stringify({ task: nodeKey }));
  expect((await cli('--dir', repo, 'submit-work', '--file', file, '--node-key', nodeKey)).code).toBe(0);
}

/** The real store backend (on the clock `now`), counting its reads and publications. */
function counted(now: () => number = Date.now): { backend: TuiBackend; loads: () => number; publishes: () => number } {
  const real = storeBackend(storeFor({ dir: repo, branch: 'work-queue' }), { principal: '1', basis: 'test' }, now);
  let loads = 0;
  let publishes = 0;
  return {
    backend: {
      authority: real.authority,
      load: (watch) => {
        loads += 1;
        return real.load(watch);
      },
      publish: (plan) => {
        publishes += 1;
        return real.publish(plan);
      },
    },
    loads: () => loads,
    publishes: () => publishes,
  };
}

function start(o: { backend?: TuiBackend; now?: () => number; columns?: number; rows?: number; session?: string } = {}) {
  const stdin = new FakeStdin();
  const stdout = new FakeStdout();
  stdout.columns = o.columns ?? 120;
  stdout.rows = o.rows ?? 30;
  const tui = startTui({ dir: repo, branch: 'work-queue' }, { stdin: stdin as never, stdout: stdout as never }, {
    debug: true, session: o.session ?? 'f', ...(o.backend && { backend: o.backend }), ...(o.now && { now: o.now }),
  });
  const state = (): TuiState => tui.controller.getState();
  /** Types bytes and waits until the state shows they were handled. */
  const type = typer(stdin, tui);
  return { stdin, stdout, tui, state, type };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a ledger that becomes invalid between reads', () => {
  it('keeps the previous view with a STALE status naming the ledger\'s verdict, and publishes nothing on it until a read succeeds', async () => {
    await submitOne('only');
    const good = git(repo, 'rev-parse', 'refs/heads/work-queue');
    const c = counted();
    const { stdout, tui, state, type } = start({ backend: c.backend, session: 'inv' });
    await until('the first read', () => state().snapshot !== null);

    // A commit outside the protocol appends a record of no supported version to the ledger.
    const ledger = git(repo, 'show', 'work-queue:work-queue.jsonl');
    const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: `${ledger}\n{"garbage":1}\n`, encoding: 'utf8' }).trim();
    const tree = execFileSync('git', ['-C', repo, 'mktree'], { input: `100644 blob ${blob}\twork-queue.jsonl\n`, encoding: 'utf8' }).trim();
    const bad = git(repo, 'commit-tree', tree, '-p', good, '-m', 'corrupt');
    git(repo, 'update-ref', 'refs/heads/work-queue', bad);

    await type('r', () => state().read.error !== null, 'the failed read');
    await until('the stale status', () => stdout.screen().includes('STALE: read failed'));
    const stale = stdout.screen();
    expect(stale).toMatch(/STALE: read failed \d\d:\d\d:\d\d \(unsupported_protocol\); showing the read of/);
    expect(stale).toContain('available P3');
    expect(stale).toContain('"only"');

    await type('j', () => state().cursor === 1, 'the Work row');
    await type('c', () => state().dialog !== null, 'the review');
    await until('the blocked confirmation', () => stdout.screen().includes('>> CONFIRM'));
    expect(stdout.screen().replace(/\s+/g, ' ')).toContain('CANNOT PUBLISH: the view is stale: the last read failed (unsupported_protocol)');
    await type('y', () => state().message !== null, 'the refusal');
    expect(state().message?.text).toMatch(/^cannot publish: the view is stale/);
    expect(state().dialog?.phase).toBe('review');
    expect(c.publishes()).toBe(0);
    expect(git(repo, 'rev-parse', 'refs/heads/work-queue')).toBe(bad);

    // The ledger is repaired: a read succeeds, and the same action can be reviewed and published.
    git(repo, 'update-ref', 'refs/heads/work-queue', good);
    await type('n', () => state().dialog === null, 'dismiss');
    await type('r', () => !state().read.loading && state().read.error === null, 'the good read');
    await until('live again', () => stdout.screen().includes('live, read'));
    await type('c', () => state().dialog !== null, 'the second review');
    await type('y', () => state().acks.length === 1 && !state().read.loading, 'the publication');
    expect(state().acks[0]!.result).toMatchObject({ status: 'committed' });
    expect(c.publishes()).toBe(1);
    tui.instance.unmount();
    await tui.done;
  });
});

/**
 * The real Git store whose compare-and-swap loses its answer: `lost` writes the commit and then
 * fails as a dropped connection would; `unsent` fails before writing anything. Either way the
 * browser cannot know whether the write landed.
 */
function lossyStore(mode: { next: 'ok' | 'lost' | 'unsent' }): LedgerStore {
  const real = storeFor({ dir: repo, branch: 'work-queue' });
  const cut = async <T>(write: () => Promise<T>): Promise<T> => {
    const how = mode.next;
    mode.next = 'ok';
    if (how === 'unsent') throw new ProtocolError('store_write_failed', 'connection reset before the request was sent');
    const outcome = await write();
    if (how === 'lost') throw new ProtocolError('store_write_failed', 'connection reset before the answer arrived');
    return outcome;
  };
  return {
    label: real.label,
    read: () => real.read(),
    readDefaultBranchFile: (path) => real.readDefaultBranchFile(path),
    compareAndSwap: (expected, bytes, message) => cut(() => real.compareAndSwap(expected, bytes, message)),
    ...(real.compareAndSwapParts !== undefined && {
      compareAndSwapParts: (expected: string | null, parts: readonly Uint8Array[], message: string) => cut(() => real.compareAndSwapParts!(expected, parts, message)),
    }),
  };
}

describe('uncertain acknowledgements', () => {
  it('stay on screen with the explain command; one that landed is found by the next read and explained; one that did not is named again on leaving and is unknown_request', async () => {
    await submitOne('first');
    await submitOne('second');
    const mode: { next: 'ok' | 'lost' | 'unsent' } = { next: 'ok' };
    const backend = storeBackend(lossyStore(mode), { principal: '1', basis: 'test' });
    const stdin = new FakeStdin();
    const stdout = new FakeStdout();
    const stderr = new FakeStdout();
    const tui = startTui({ dir: repo, branch: 'work-queue' }, { stdin: stdin as never, stdout: stdout as never, stderr: stderr as never }, { debug: true, session: 'un', backend });
    const state = (): TuiState => tui.controller.getState();
    const type = typer(stdin, tui);
    await until('the first read', () => state().snapshot !== null);

    // 1. The commit lands but its answer is lost.
    mode.next = 'lost';
    await type('jc', () => state().dialog !== null, 'the first review');
    await type('y', () => state().acks.length === 1 && !state().read.loading, 'the first outcome');
    expect(state().acks[0]!.result).toMatchObject({ status: 'uncertain' });
    const landed = state().acks[0]!.foundCommit;
    expect(landed).toMatch(/^q_[0-9a-f]{64}$/); // the re-read looked the request id up
    await until('the uncertain line', () => stdout.screen().includes('UNCERTAIN tui-cancel_work-un-1'));
    await until('the found commit', () => stdout.screen().includes(`UNCERTAIN tui-cancel_work-un-1: cancel_work x1 store_write_failed (since found committed in ${landed!.slice(0, 20)}`));
    const explained = await cli('--dir', repo, '--json', 'explain', '--request-id', 'tui-cancel_work-un-1');
    expect(explained.code).toBe(0);
    expect(JSON.parse(explained.out)).toMatchObject({ commit_id: landed, kind: 'cancel_work' });

    // 2. The write never leaves: still uncertain to the browser, and never found.
    mode.next = 'unsent';
    await type('jc', () => state().dialog !== null, 'the second review');
    await type('y', () => state().acks.length === 2 && !state().read.loading, 'the second outcome');
    expect(state().acks[1]!).toMatchObject({ requestId: 'tui-cancel_work-un-2', result: { status: 'uncertain' }, foundCommit: null });
    // The latest is shown, and at 120 columns the count of the others too (it comes before the cut).
    await until('both listed', () => stdout.screen().includes('UNCERTAIN tui-cancel_work-un-2 (+1 more uncertain): cancel_work x1 store_write_failed; fairway explain'));
    // Leaving the browser: the unresolved one is said again on the main screen.
    stdin.write('q');
    await tui.done;
    const left = stderr.frames.join('');
    expect(left).toContain('fairway tui: UNCERTAIN request tui-cancel_work-un-2 (cancel_work x1): check with: fairway explain --request-id tui-cancel_work-un-2');
    expect(left).not.toContain('tui-cancel_work-un-1');
    const unknown = await cli('--dir', repo, '--json', 'explain', '--request-id', 'tui-cancel_work-un-2');
    expect(unknown.code).toBe(3);
    expect(JSON.parse(unknown.out).error.code).toBe('unknown_request');
  });
});

describe('a terminal resized below 45x16 while running', () => {
  it('shows only the size notice and ignores every key but q; enlarged again, the same view and cursor return', async () => {
    await submitOne('first');
    await submitOne('second');
    const c = counted();
    const { stdin, stdout, tui, state, type } = start({ backend: c.backend, session: 'rs' });
    await until('the first read', () => state().snapshot !== null);
    await type('jj', () => state().cursor === 2, 'the second Work');
    const key = state().cursorKey;

    stdout.resize(44, 30);
    await until('the size notice', () => stdout.screen().includes('terminal too small: 44x30'));
    expect(stdout.screen().trim().split('\n')).toEqual(['terminal too small: 44x30', 'need 45x16: enlarge, or q quits']);
    const reads = c.loads();
    stdin.write('k c r / ?');
    await pause(100);
    await tui.controller.idle();
    expect([state().cursorKey, state().dialog, state().selected.size, state().searchDraft, state().help]).toEqual([key, null, 0, null, false]);
    expect(c.loads()).toBe(reads);

    stdout.resize(45, 15);
    await until('still too small', () => stdout.screen().includes('terminal too small: 45x15'));
    stdout.resize(45, 16);
    await until('the view again', () => stdout.screen().includes('TREE rows'));
    expect(state().cursorKey).toBe(key);
    expect(stdout.screen()).toMatch(/>\[ \] +available P3 [0-9a-f]{8}… "second"/);
    expect(stdout.screen().split('\n').every((l) => l.length <= 45)).toBe(true);

    stdout.resize(40, 16);
    await until('too small again', () => stdout.screen().includes('terminal too small: 40x16'));
    stdin.write('q');
    await tui.done;
    expect(state().quit).toBe(true);
  });
});

describe('the idle refresh on the real timer', () => {
  it('reads again once the view is 10 s old, and not while an action is reviewed', async () => {
    await submitOne('only');
    const clock = { t: Date.now() };
    const c = counted(() => clock.t);
    const { tui, state, type } = start({ backend: c.backend, now: () => clock.t, session: 'tick' });
    await until('the first read', () => state().snapshot !== null && !state().read.loading);
    expect(c.loads()).toBe(1);
    clock.t += REFRESH_MS - 1;
    await pause(1300); // past a one-second tick
    expect(c.loads()).toBe(1);
    clock.t += 1;
    await until('the idle refresh', () => c.loads() === 2, 3000);
    await until('the refresh done', () => !state().read.loading);

    await type('jc', () => state().dialog !== null, 'the review');
    clock.t += 6 * REFRESH_MS;
    await pause(1300);
    expect(c.loads()).toBe(2);
    await type('\x1b', () => state().dialog === null, 'dismiss');
    await until('the refresh after the review', () => c.loads() === 3, 3000);
    tui.instance.unmount();
    await tui.done;
  });
});

describe('the terminal checks at start', () => {
  it('45x16 starts; 44x16 and 45x15 are terminal_too_small; standard output that is not a terminal is terminal_not_interactive', async () => {
    await submitOne('only');
    const { tui, state, stdout } = start({ columns: 45, rows: 16 });
    await until('the first frame', () => state().snapshot !== null && stdout.screen().includes('"only"'));
    tui.instance.unmount();
    await tui.done;
    for (const [columns, rows] of [[44, 16], [45, 15]] as const) {
      const small = Object.assign(new FakeStdout(), { columns, rows });
      expect(() => startTui({ dir: repo }, { stdin: new FakeStdin() as never, stdout: small as never })).toThrow(expect.objectContaining({ code: 'terminal_too_small', message: expect.stringContaining(`this one is ${columns}x${rows}`) }));
      expect(small.frames).toEqual([]); // refused before the alternate screen
    }
    const piped = Object.assign(new PassThrough(), { columns: 120, rows: 30 });
    expect(() => startTui({ dir: repo }, { stdin: new FakeStdin() as never, stdout: piped as never })).toThrow(expect.objectContaining({ code: 'terminal_not_interactive' }));
  });
});
