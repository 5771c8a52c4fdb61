/**
 * The keyboard browser end to end: ink renders to a fake terminal (streams
 * with `isTTY`, `columns`, `rows`) against a real temporary Git repository
 * queue; keys go in as terminal bytes; the reviewed cancellation must land in
 * the ledger, as `replay --json` shows. Also the command's refusals.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { storeBackend, type TuiBackend } from '../../cli/tui/backend.ts';
import { startTui } from '../../cli/tui/run.ts';
import { storeFor } from '../../cli/source.ts';
import type { TuiState } from '../../cli/tui/state.ts';
import { FakeStdin, FakeStdout, cli, git, projectRepo, typer, until } from './fake-terminal.ts';

let repo: string;

beforeEach(() => {
  repo = projectRepo();
});

describe('fairway tui on a real Git queue', () => {
  it('navigates, selects two Work, reviews and publishes a cancellation that replay then shows', async () => {
    const graph = join(repo, '..', `${repo.split('/').at(-1)}-graph.json`);
    writeFileSync(graph, JSON.stringify([
      { node_key: 'alpha', payload: { secret: 'NOT-SHOWN' } },
      { node_key: 'beta', payload: {} },
      { node_key: 'gamma', payload: {}, depends_on: [{ kind: 'work', node_key: 'alpha' }] },
    ]));
    const submitted = await cli('--repo', repo, '--json', 'submit-graph', '--file', graph, '--graph-id', 'sdk');
    expect(submitted.code).toBe(0);
    const [alpha, beta, gamma] = JSON.parse(submitted.out).work_ids as string[];

    const stdin = new FakeStdin();
    const stdout = new FakeStdout();
    const tui = startTui({ dir: repo, branch: 'work-queue' }, { stdin: stdin as never, stdout: stdout as never }, { debug: true, session: 'it' });
    const state = (): TuiState => tui.controller.getState();
    const type = typer(stdin, tui);

    await until('the first read', () => state().snapshot !== null);
    await until('the tree on screen', () => stdout.screen().includes('"gamma"'));
    expect(stdout.screen()).toContain('>> TREE rows 1-4 of 4');
    expect(stdout.screen()).not.toContain('NOT-SHOWN');

    await type('\x1b[B', () => state().cursor === 1, 'down arrow'); // arrow keys arrive as escape sequences
    await type(' ', () => state().selected.size === 1, 'space');
    await type('j', () => state().cursor === 2, 'j');
    await type(' ', () => state().selected.size === 2, 'second selection');
    await until('both marked', () => (stdout.screen().match(/\[x\]/g) ?? []).length >= 2);
    expect(stdout.screen()).toMatch(/\[x\] {5}available P3 [0-9a-f]{8}… "alpha"/);

    await type('c', () => state().dialog !== null, 'review');
    await until('the confirmation', () => stdout.screen().includes('>> CONFIRM'));
    const review = stdout.screen();
    expect(review).toContain('cancel-work: 2 targets, all-or-nothing');
    expect(review).toContain('authority: administrator, principal 1 (local principal, unauthenticated)');
    expect(review).toContain('request id: tui-cancel_work-it-1');
    expect(review).toContain(`- work ${alpha}`);
    expect(review).toContain(`- work ${beta}`);
    expect(review).not.toContain(gamma);

    await type('y', () => state().acks.length === 1 && !state().read.loading, 'publication');
    expect(state().acks[0]!.result.status).toBe('committed');
    await until('the acknowledgement', () => stdout.screen().includes('committed tui-cancel_work-it-1: cancel_work of 2'));
    await until('the re-read', () => (stdout.screen().match(/cancelled/g) ?? []).length >= 2);

    const replay = await cli('--repo', repo, '--json', 'replay');
    expect(JSON.parse(replay.out).summary.works.by_state).toEqual({ available: 1, claimed: 0, completed: 0, cancelled: 2 });
    const trace = await cli('--repo', repo, '--json', '--request-id', 'tui-cancel_work-it-1', 'trace');
    expect(JSON.parse(trace.out).events).toEqual([expect.objectContaining({ kind: 'cancel_work', role: 'administrator' })]);

    stdin.write('q');
    await tui.done;
    expect(state().quit).toBe(true);
  });

  it('keeps the last view with a STALE status when a read fails', async () => {
    const file = join(repo, '..', `${repo.split('/').at(-1)}-w.json`);
    writeFileSync(file, JSON.stringify({ task: 1 }));
    expect((await cli('--repo', repo, 'submit-work', '--file', file, '--node-key', 'only')).code).toBe(0);
    const stdin = new FakeStdin();
    const stdout = new FakeStdout();
    const tui = startTui({ dir: repo, branch: 'work-queue' }, { stdin: stdin as never, stdout: stdout as never }, { debug: true, session: 'st' });
    await until('the first read', () => tui.controller.getState().snapshot !== null);
    git(repo, 'update-ref', '-d', 'refs/heads/work-queue'); // the queue branch disappears
    stdin.write('r');
    await until('the failed read', () => tui.controller.getState().read.error !== null);
    await until('the stale status', () => stdout.screen().includes('STALE: read failed'));
    expect(stdout.screen()).toContain('"only"');
    expect(tui.controller.getState().read.error!.code).toBe('queue_uninitialized');
    stdin.write('q');
    await tui.done;
  });
});

describe('fairway tui: an action the queue outran is refused, not applied to what was not reviewed', () => {
  it('a grant between review and y: cancel-work is rejected with preview_stale and the claimed Work is left running', async () => {
    const file = join(repo, '..', `${repo.split('/').at(-1)}-w.json`);
    writeFileSync(file, JSON.stringify({ task: 1 }));
    const submitted = await cli('--repo', repo, '--json', 'submit-work', '--file', file, '--node-key', 'only');
    expect(submitted.code).toBe(0);
    const stdin = new FakeStdin();
    const stdout = new FakeStdout();
    const tui = startTui({ dir: repo, branch: 'work-queue' }, { stdin: stdin as never, stdout: stdout as never }, { debug: true, session: 'race' });
    const state = (): TuiState => tui.controller.getState();
    await until('the first read', () => state().snapshot !== null);
    stdin.write('j');
    await until('the Work row', () => state().cursor === 1);
    stdin.write('c');
    await until('the review', () => stdout.screen().includes('>> CONFIRM'));
    expect(stdout.screen()).toContain('"only" available P3');
    // Meanwhile the dispatcher grants it: the review (reads paused) still shows it available.
    expect((await cli('--repo', repo, '--json', 'dispatch-next')).code).toBe(0);
    stdin.write('y');
    await until('the outcome', () => state().acks.length === 1 && !state().read.loading);
    expect(state().acks[0]!.result).toMatchObject({ status: 'rejected', code: 'preview_stale' });
    await until('the refusal on screen', () => stdout.screen().includes('not published tui-cancel_work-race-1 (preview_stale)'));
    const replay = JSON.parse((await cli('--repo', repo, '--json', 'replay')).out);
    expect(replay.summary.works.by_state).toMatchObject({ claimed: 1, cancelled: 0 });
    await until('the re-read', () => stdout.screen().includes('claimed   P3'));
    stdin.write('q');
    await tui.done;
  });
});

describe('fairway tui: what is still uncertain outlives the screen', () => {
  it('Ctrl-C while a reviewed action is publishing names its request id and the explain command on stderr', async () => {
    const file = join(repo, '..', `${repo.split('/').at(-1)}-w.json`);
    writeFileSync(file, JSON.stringify({ task: 1 }));
    expect((await cli('--repo', repo, 'submit-work', '--file', file, '--node-key', 'only')).code).toBe(0);
    const real = storeBackend(storeFor({ dir: repo, branch: 'work-queue' }), { principal: '1', basis: 'test' });
    const backend: TuiBackend = { ...real, publish: () => new Promise(() => undefined) }; // a write that never answers
    const stdin = new FakeStdin();
    const stdout = new FakeStdout();
    const stderr = new FakeStdout();
    const tui = startTui({ dir: repo }, { stdin: stdin as never, stdout: stdout as never, stderr: stderr as never }, { debug: true, session: 'cc', backend });
    await until('the first read', () => tui.controller.getState().snapshot !== null);
    stdin.write('j');
    await until('the Work row', () => tui.controller.getState().cursor === 1);
    stdin.write('c');
    await until('the review', () => tui.controller.getState().dialog !== null);
    stdin.write('y');
    await until('publishing', () => tui.controller.getState().dialog?.phase === 'publishing');
    stdin.write('\x03'); // Ctrl-C
    await tui.done;
    expect(stderr.frames.join('')).toContain('fairway tui: request tui-cancel_work-cc-1 (cancel_work) was still being published when the browser closed; its outcome is unknown: check with: fairway explain --request-id tui-cancel_work-cc-1');
  });
});

describe('fairway tui refusals', () => {
  it('rejects --json and --request-id, and a non-interactive terminal', async () => {
    const json = await cli('--repo', repo, '--json', 'tui');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.out).error.code).toBe('option_invalid');
    const rid = await cli('--repo', repo, '--request-id', 'x', 'interactive');
    expect(rid.code).toBe(2);
    expect(rid.err).toMatch(/--request-id is not accepted/);
    expect(() => startTui({ dir: repo }, { stdin: new PassThrough() as never, stdout: new FakeStdout() as never })).toThrow(expect.objectContaining({ code: 'terminal_not_interactive' }));
    const tiny = Object.assign(new FakeStdout(), { columns: 44 });
    expect(() => startTui({ dir: repo }, { stdin: new FakeStdin() as never, stdout: tiny as never })).toThrow(expect.objectContaining({ code: 'terminal_too_small' }));
  });
});
