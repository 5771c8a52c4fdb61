/**
 * Contention over a real remote (docs/performance.md, "Contention"): 8 dispatcher processes,
 * each in its own clone of a queue served by `git daemon` on 127.0.0.1, race single-Claim
 * dispatch_next calls with the default retry budget. The fault campaign saw 9 of 200 such
 * calls fail with publish_retries_exhausted; none may now, every grant must be distinct, and
 * the ledger must replay with every request holding exactly its one Claim.
 */
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayLedger } from '../../engine/replay/index.ts';
import { startGitDaemon, type GitDaemon } from '../store/git-daemon.ts';
import { gitSync, initRepo, removeTempDirs, tempDir } from '../store/git-fixtures.ts';
import { seedQueue } from '../store/queue-seed.ts';

const DISPATCHERS = 8;
const CALLS = 10;
const WORKER = join(import.meta.dirname, '..', 'support', 'dispatcher.ts');

let base: string;
let daemon: GitDaemon;

beforeAll(async () => {
  base = tempDir('contention');
  daemon = await startGitDaemon(base);
});

afterAll(async () => {
  await daemon.stop();
  removeTempDirs();
});

interface DispatcherOut { granted: string[]; exhausted: string[]; attempts: number; longest: number }

function dispatcher(clone: string, id: number): Promise<DispatcherOut> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, clone, String(id), String(CALLS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as DispatcherOut) : reject(new Error(`dispatcher ${id} exited ${code}: ${err.slice(-2000)}`))));
  });
}

describe('8 racing dispatchers over a real git daemon', () => {
  it('no call exhausts its retries: every call grants one distinct Work, and the ledger replays', async () => {
    const bare = initRepo({ bare: true, dir: join(base, 'queue.git') });
    await seedQueue(bare, DISPATCHERS * CALLS + 4);
    const clones = Array.from({ length: DISPATCHERS }, (_, i) => {
      const clone = join(tempDir('clone'), `c${i}.git`);
      gitSync(base, ['clone', '-q', '--bare', daemon.url('queue.git'), clone]);
      return clone;
    });
    const outs = await Promise.all(clones.map((clone, i) => dispatcher(clone, i)));
    const exhausted = outs.flatMap((o) => o.exhausted);
    const granted = outs.flatMap((o) => o.granted);
    const attempts = outs.reduce((n, o) => n + o.attempts, 0);
    console.log(`${granted.length} grants, ${attempts} CAS attempts (${(attempts / Math.max(1, granted.length)).toFixed(2)} per grant), longest losing streak ${Math.max(...outs.map((o) => o.longest))}`);
    expect(exhausted).toEqual([]);
    expect(granted).toHaveLength(DISPATCHERS * CALLS);
    expect(new Set(granted).size).toBe(granted.length); // no Work granted twice
    const projection = replayLedger(execFileSync('git', ['cat-file', 'blob', 'work-queue:work-queue.jsonl'], { cwd: bare, maxBuffer: 64 << 20 }));
    for (let d = 0; d < DISPATCHERS; d++) {
      for (let i = 0; i < CALLS; i++) expect(projection.request(`d${d}-${i}`)?.claimIds, `d${d}-${i}`).toHaveLength(1);
    }
    expect(projection.state.claims.size).toBe(DISPATCHERS * CALLS);
  }, 300_000);
});
