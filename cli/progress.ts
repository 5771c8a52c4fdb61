/**
 * Progress for long replays on an interactive terminal ("long
 * operations show progress on a TTY"). Silent under --json or when stderr is
 * not a terminal, so scripts and logs never see it.
 *
 * The line is redrawn in place (`\r`, erase to its end) and cleared once the synchronous replay
 * returns control; a command that fails inside the replay (an invalid ledger) prints its error
 * before that, so the CLI clears every drawn line first (`clearProgress`, cli/progress-lines.ts): the error would
 * otherwise continue the progress line on the terminal. So does a debug event (`DEBUG=work-queue:*`,
 * `replay cold` right after the replay): each starts its own line with its timestamp.
 */
import type { ReplayProgress } from '../engine/replay/index.ts';
import { setBeforeDebugLine } from '../lib/debug/log.ts';
import { clearProgress, lineCleared, lineDrawn } from './progress-lines.ts';

export interface Progress {
  onProgress?: ReplayProgress;
  /** Clears the progress line, if one was drawn. */
  done(): void;
}

// A debug event on stderr first erases a drawn progress line.
setBeforeDebugLine(clearProgress);

export function replayProgress(json: boolean, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (json || !stream.isTTY) return { done: () => undefined };
  let drawn = false;
  const done = () => {
    if (drawn) stream.write('\r\x1b[K');
    drawn = false;
    lineCleared(done);
  };
  return {
    onProgress: ({ lines, commits }) => {
      // Replay is synchronous: clear the line as soon as it returns control.
      if (!drawn) setImmediate(done);
      drawn = true;
      lineDrawn(done);
      stream.write(`\r\x1b[Kreplaying the ledger: ${lines.toLocaleString('en-US')} records, ${commits.toLocaleString('en-US')} commits validated…`);
    },
    done,
  };
}
