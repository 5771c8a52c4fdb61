/**
 * What engine entry points accept: a `Projection` (lib/ and the surfaces, which cannot reach a
 * replay state; engine/replay/projection.ts) or, inside the engine and its unit tests, the bare
 * state. The floor names a projection only by what it holds, so nothing here imports replay.
 */
import type { ReplayState } from './state.ts';

/** A queue read through its front door: engine/replay/projection.ts `Projection`. */
export interface StateHolder {
  readonly state: ReplayState;
}

export type QueueSource = StateHolder | ReplayState;

/** @internal engine-only: the state behind a queue source. */
export function stateOf(source: QueueSource): ReplayState {
  return 'state' in source ? source.state : source;
}
