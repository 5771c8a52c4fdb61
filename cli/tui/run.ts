/**
 * Starts the keyboard browser on a terminal: checks that standard input and
 * output are interactive and large enough, wires the controller to ink, and
 * resolves when the operator quits.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:os';
import { render, useInput, type Instance } from 'ink';
import { createElement as h, useSyncExternalStore, type ReactElement } from 'react';
import { fail } from '../../engine/errors.ts';
import type { GlobalOptions } from '../context.ts';
import { openBackend, type TuiBackend } from './backend.ts';
import { TuiController } from './controller.ts';
import { fromInk } from './keys.ts';
import { MIN_COLUMNS, MIN_ROWS } from './layout.ts';
import { initialState, unsettledLines } from './state.ts';
import { Screen } from './view.ts';

export interface TuiStreams {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

export interface TuiOptions {
  /** Write every frame in full (tests read the last one); also skips the alternate screen. */
  debug?: boolean;
  now?: () => number;
  session?: string;
  /** Replaces the store backend (tests). */
  backend?: TuiBackend;
}

export interface RunningTui {
  controller: TuiController;
  instance: Instance;
  /** Settles once the terminal is restored: the signal that ended the browser, else null. */
  done: Promise<NodeJS.Signals | null>;
}

/** Signals that end the browser: it restores the terminal (main screen, cursor, cooked mode) first. */
const ENDING_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGHUP'];

function App({ controller, onInterrupt }: { controller: TuiController; onInterrupt: () => void }): ReactElement {
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  useInput((input, key) => {
    if (key.ctrl && input === 'c') return onInterrupt();
    for (const press of fromInk(input, key)) controller.dispatch({ type: 'key', key: press });
  });
  return h(Screen, { state });
}

export function startTui(g: GlobalOptions, io: TuiStreams, options: TuiOptions = {}): RunningTui {
  if (io.stdin.isTTY !== true || io.stdout.isTTY !== true) {
    fail('terminal_not_interactive', 'tui needs an interactive terminal on standard input and output');
  }
  const viewport = { columns: io.stdout.columns ?? 0, rows: io.stdout.rows ?? 0 };
  if (viewport.columns < MIN_COLUMNS || viewport.rows < MIN_ROWS) {
    fail('terminal_too_small', `tui needs a terminal of at least ${MIN_COLUMNS}x${MIN_ROWS}; this one is ${viewport.columns}x${viewport.rows}`);
  }
  const now = options.now ?? Date.now;
  const backend = options.backend ?? openBackend(g, now);
  const session = options.session ?? randomBytes(4).toString('hex');
  let instance: Instance | null = null;
  const controller = new TuiController(initialState({ session, now: now(), viewport, authority: backend.authority }), backend, {
    now,
    onQuit: () => instance?.unmount(),
  });
  const onResize = () => controller.dispatch({ type: 'resize', viewport: { columns: io.stdout.columns ?? 0, rows: io.stdout.rows ?? 0 } });
  io.stdout.on('resize', onResize);
  const alternate = options.debug !== true;
  if (alternate) io.stdout.write('\x1b[?1049h\x1b[H');
  // `kill`, `timeout` or a closed terminal: without this the process dies on the alternate screen.
  // Ctrl-C (raw mode delivers it as a key) ends the browser as SIGINT would: exit status 130.
  let signalled: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    signalled ??= signal;
    instance?.unmount();
  };
  instance = render(h(App, { controller, onInterrupt: () => onSignal('SIGINT') }), {
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr ?? io.stdout,
    debug: options.debug ?? false,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  for (const signal of ENDING_SIGNALS) process.on(signal, onSignal);
  controller.start();
  const done = instance.waitUntilExit().then(() => undefined).finally(() => {
    controller.stop();
    for (const signal of ENDING_SIGNALS) process.off(signal, onSignal);
    io.stdout.off('resize', onResize);
    if (alternate) io.stdout.write('\x1b[?1049l');
    // Back on the main screen: what is still uncertain stays visible after the browser.
    const left = unsettledLines(controller.getState());
    if (left.length > 0) (io.stderr ?? io.stdout).write(`${left.join('\n')}\n`);
  }).then(() => signalled);
  return { controller, instance, done };
}

export async function runTui(g: GlobalOptions, io: TuiStreams, options: TuiOptions = {}): Promise<void> {
  const signal = await startTui(g, io, options).done;
  // The terminal is restored: end as the signal asked (exit status 128 + its number). A library's
  // own listener (ink's signal-exit) would otherwise take the re-raised signal asynchronously while
  // the command returns and exits 0 first (seen on a loaded machine): it is removed, and the exit
  // status is set too in case the process still ends normally.
  if (signal !== null) {
    process.exitCode = 128 + (constants.signals[signal] ?? 0);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
}
