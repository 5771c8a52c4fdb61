/**
 * What bench/replay-child.ts's modes measure with: clocks (wall and this process's CPU time),
 * peak RSS, a forced GC when node runs with --expose-gc, and the floor itself (read + split +
 * JSON.parse of every line).
 */
import { readFileSync } from 'node:fs';

export const gc = (globalThis as { gc?: () => void }).gc ?? ((): void => {});
export const maxRssKB = (): number => process.resourceUsage().maxRSS;
export const now = (): number => performance.now();
/** CPU time of this process (user + system, all threads), ms: far less sensitive than wall time to a shared, loaded machine. */
export const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
export const round = (ms: number): number => Math.round(ms * 1000) / 1000;

/** Wall time of one `run`, ms. */
export function timed(run: () => void): number {
  const t = performance.now();
  run();
  return performance.now() - t;
}

/** Wall time of one `run` that may wait (a file read through lib/), ms. */
export async function timedAsync(run: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await run();
  return performance.now() - t;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** One floor run: read + split + JSON.parse of every line; answers the line count. */
export function floorOnce(file: string): number {
  const text = readFileSync(file, 'utf8');
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    JSON.parse(line);
    n += 1;
  }
  return n;
}
