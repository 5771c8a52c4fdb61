/**
 * Cold replay with the per-record checks on worker threads (lib/replay/thread-verifier.ts),
 * against replay alone and the floor, all in this one process, wall time (CPU time counts the
 * workers too, so it cannot show a parallel gain):
 *
 *   node --import tsx bench/replay-threads.ts FILE [ROUNDS=5] [THREADS=1]
 *
 * The first round of each (a fresh process's first replay: cold JIT, the pool starting) is
 * reported on its own; then, without forced GCs and after two warm-up rounds, ROUNDS interleaved
 * rounds of floor, replay alone and replay with THREADS workers. Prints one JSON object.
 */
import { readFileSync } from 'node:fs';
import { replayLedger } from '../engine/replay/index.ts';
import { ThreadVerifier } from '../lib/replay/thread-verifier.ts';
import { floorOnce, median, timed } from './replay-measure.ts';

const [file, roundsArg, threadsArg] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: replay-threads FILE [ROUNDS] [THREADS]');
const rounds = Number(roundsArg ?? 5);
const threads = Number(threadsArg ?? 1);
const verifier = new ThreadVerifier({ threads });
const alone = new ThreadVerifier({ threads: 0 });

const round = (ms: number): number => Math.round(ms * 10) / 10;
/** read + split + JSON.parse of every line (bench/replay-measure.ts). */
const floor = (): void => {
  floorOnce(file!);
};
const replayWith = (v: ThreadVerifier) => (): void => {
  replayLedger(readFileSync(file!), undefined, v);
};

const first = { floor: timed(floor), threaded: timed(replayWith(verifier)), threadedAhead: verifier.last?.ahead ?? 0, alone: timed(replayWith(alone)) };
for (let w = 0; w < 2; w++) {
  floor();
  replayWith(alone)();
  replayWith(verifier)();
}
const floorMs: number[] = [];
const aloneMs: number[] = [];
const threadedMs: number[] = [];
let ahead = 0;
let records = 0;
for (let r = 0; r < rounds; r++) {
  floorMs.push(timed(floor));
  aloneMs.push(timed(replayWith(alone)));
  threadedMs.push(timed(replayWith(verifier)));
  ahead += verifier.last?.ahead ?? 0;
  records += verifier.last?.records ?? 0;
}
await verifier.close();
const f = median(floorMs);
console.log(JSON.stringify({
  mode: 'threads', threads, rounds,
  first: { floor: round(first.floor), alone: round(first.alone), threaded: round(first.threaded), threadedAhead: first.threadedAhead },
  floorWall: floorMs.map(round), aloneWall: aloneMs.map(round), threadedWall: threadedMs.map(round),
  floorMedian: round(f), aloneMedian: round(median(aloneMs)), threadedMedian: round(median(threadedMs)),
  aloneRatio: Math.round((100 * median(aloneMs)) / f) / 100, threadedRatio: Math.round((100 * median(threadedMs)) / f) / 100,
  aheadFraction: records === 0 ? 0 : round((1000 * ahead) / records) / 1000,
}));
