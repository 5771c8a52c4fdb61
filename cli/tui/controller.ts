/**
 * Runs the reducer: holds the current state, notifies the renderer, and
 * carries out effects (reads, publications, quit) against a backend. A
 * one-second tick lets the reducer decide when an idle refresh is due.
 */
import { internalError, isProtocolError } from '../../engine/errors.ts';
import type { TuiBackend } from './backend.ts';
import { reduce } from './reducer.ts';
import type { Effect, TuiEvent, TuiState } from './state.ts';

export const TICK_MS = 1000;

export interface ControllerOptions {
  now?: () => number;
  onQuit?: () => void;
  /** Timer hooks (tests drive ticks themselves by passing no-ops). */
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (handle: unknown) => void;
}

export class TuiController {
  private state: TuiState;
  private readonly listeners = new Set<() => void>();
  private timer: unknown = null;
  private readonly now: () => number;
  /** Settles when every effect started so far has finished (tests). */
  private pending: Promise<unknown> = Promise.resolve();

  constructor(initial: TuiState, private readonly backend: TuiBackend, private readonly options: ControllerOptions = {}) {
    this.state = initial;
    this.now = options.now ?? Date.now;
  }

  getState = (): TuiState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  dispatch = (event: TuiEvent): void => {
    const { state, effects } = reduce(this.state, event);
    if (state !== this.state) {
      this.state = state;
      for (const l of this.listeners) l();
    }
    for (const effect of effects) this.run(effect);
  };

  start(): void {
    this.dispatch({ type: 'tick', now: this.now() });
    const every = this.options.setInterval ?? ((fn, ms) => setInterval(fn, ms));
    this.timer = every(() => this.dispatch({ type: 'tick', now: this.now() }), TICK_MS);
  }

  stop(): void {
    if (this.timer !== null) (this.options.clearInterval ?? ((h) => clearInterval(h as NodeJS.Timeout)))(this.timer);
    this.timer = null;
  }

  /** Resolves once all effects started so far (and those they started) are done. */
  async idle(): Promise<void> {
    let seen: Promise<unknown> | null = null;
    while (seen !== this.pending) {
      seen = this.pending;
      await seen;
    }
  }

  private run(effect: Effect): void {
    if (effect.type === 'quit') {
      this.stop();
      this.options.onQuit?.();
      return;
    }
    const work = effect.type === 'load'
      ? this.backend.load(effect.watch).then(
        (snapshot) => this.dispatch({ type: 'loaded', snapshot }),
        (e: unknown) => this.dispatch({ type: 'load_failed', at: this.now(), ...describe(e) }))
      : this.backend.publish(effect.plan).then(
        (result) => this.dispatch({ type: 'published', at: this.now(), plan: effect.plan, result }),
        (e: unknown) => this.dispatch({ type: 'published', at: this.now(), plan: effect.plan, result: { status: 'uncertain', ...describe(e) } }));
    this.pending = Promise.all([this.pending, work]);
  }
}

/** A protocol or system error keeps its code; any other exception is a bug (`internal_error`). */
function describe(e: unknown): { code: string; message: string } {
  if (isProtocolError(e)) return { code: e.code, message: e.message };
  if (typeof (e as { code?: unknown })?.code === 'string') return { code: (e as { code: string }).code, message: e instanceof Error ? e.message : String(e) };
  return internalError(e);
}
