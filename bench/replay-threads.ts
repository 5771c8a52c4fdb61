/**
 * Cold replay with the per-record checks on worker threads (lib/replay/thread-verifier.ts),
 * against replay alone and the floor, all in this one process, wall time (CPU time counts the
 * workers too, so it cannot show a parallel gain):
 *
 *   node --import tsx bench/replay-threads.ts FILE [ROUNDS=5] [THREADS=1]
 *
 * The first round of each (a fresh process's first replay: cold JIT, the pool starting) is
 * reported on its own; then, without forced GCs and after two warm-up rounds, ROUNDS interleaved
 * rounds of floor, replay alone and replay with THREADS workers. Replay reads the file as
 * `--ledger FILE` does (lib/ledger-file.ts: a large ledger straight into memory the workers
 * share); the floor reads it with `readFileSync`. Prints one JSON object.
 */
import { replayLedger } from '../engine/replay/index.ts';
import { readLedgerFile } from '../lib/ledger-file.ts';
import { ThreadVerifier } from '../lib/replay/thread-verifier.ts';
import { floorOnce, median, timedAsync } from './replay-measure.ts';

const [file, roundsArg, threadsArg] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: replay-threads FILE [ROUNDS] [THREADS]');
const rounds = Number(roundsArg ?? 5);
const threads = Number(threadsArg ?? 1);
const verifier = new ThreadVerifier({ threads });
const alone = new ThreadVerifier({ threads: 0 });

const round = (ms: number): number => Math.round(ms * 10) / 10;
/** read + split + JSON.parse of every line (bench/replay-measure.ts). */
const floor = async (): Promise<void> => {
  floorOnce(file!);
};
/** Replay of the file as `--ledger FILE` reads it (lib/ledger-file.ts: a large ledger into memory the workers share). */
const replayWith = (v: ThreadVerifier) => async (): Promise<void> => {
  replayLedger(await readLedgerFile(file!), undefined, v);
};

const first = { floor: await timedAsync(floor), threaded: await timedAsync(replayWith(verifier)), threadedAhead: verifier.last?.ahead ?? 0, alone: await timedAsync(replayWith(alone)) };
for (let w = 0; w < 2; w++) {
  await floor();
  await replayWith(alone)();
  await replayWith(verifier)();
}
const floorMs: number[] = [];
const aloneMs: number[] = [];
const threadedMs: number[] = [];
let ahead = 0;
let records = 0;
for (let r = 0; r < rounds; r++) {
  floorMs.push(await timedAsync(floor));
  aloneMs.push(await timedAsync(replayWith(alone)));
  threadedMs.push(await timedAsync(replayWith(verifier)));
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
