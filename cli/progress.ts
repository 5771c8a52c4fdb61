/**
 * Progress for long replays on an interactive terminal ("long
 * operations show progress on a TTY"). Silent under --json or when stderr is
 * not a terminal, so scripts and logs never see it.
 */
import type { ReplayProgress } from '../engine/replay/index.ts';

export interface Progress {
  onProgress?: ReplayProgress;
  /** Clears the progress line, if one was drawn. */
  done(): void;
}

export function replayProgress(json: boolean, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (json || !stream.isTTY) return { done: () => undefined };
  let drawn = false;
  const done = () => {
    if (drawn) stream.write('\r\x1b[K');
    drawn = false;
  };
  return {
    onProgress: ({ lines, commits }) => {
      // Replay is synchronous: clear the line as soon as it returns control.
      if (!drawn) setImmediate(done);
      drawn = true;
      stream.write(`\r\x1b[Kreplaying the ledger: ${lines.toLocaleString('en-US')} records, ${commits.toLocaleString('en-US')} commits validated…`);
    },
    done,
  };
}
