/**
 * Publication benchmark: latency and CPU of one checked publication on a 1/16/64 MiB ledger
 * against `git hash-object -w` of the same new blob (the floor: any Git-backed append must at
 * least store the blob). Contention is in bench/contention.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Publisher } from '../lib/publisher/publisher.ts';
import { LocalGitStore } from '../lib/store/local-git.ts';
import { submitRequest } from '../engine/requests/operations.ts';
import { treeCpuMs } from './cpu.ts';


function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function freshRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fairway-bench-'));
  execFileSync('git', ['init', '-q', '--bare', dir]);
  return dir;
}

export interface PublishRow {
  label: string;
  bytes: number;
  samples: number;
  /** Median wall time of one warm publication. */
  publishMs: number;
  /** Median wall time of `git hash-object -w` storing the same blob in a repository that does not have it yet (the floor). */
  hashObjectMs: number;
  /** publishMs / hashObjectMs. */
  ratio: number;
  /** Mean CPU time of one publication: this process (all threads) and its git children. */
  publishCpuMs: number;
  /** Mean CPU time of that `git hash-object -w`. */
  hashObjectCpuMs: number;
  /** publishCpuMs / hashObjectCpuMs. */
  cpuRatio: number;
  /** Median wall time of `git hash-object -w` of the same blob where it is already stored (git then only hashes it: no write). */
  hashOnlyMs: number;
}

/** Samples per ledger size: more for small ledgers, whose times are short and noisy. */
function samplesFor(bytes: number, quick: boolean): number {
  const n = bytes <= 2 * 2 ** 20 ? 25 : bytes <= 20 * 2 ** 20 ? 9 : 5;
  return quick ? Math.ceil(n / 2) : n;
}

/**
 * One warm publication (version check + build + validate + write objects + CAS) per sample,
 * interleaved with `git hash-object -w` of the blob it wrote, into a repository that lacks it.
 */
export async function runPublishBench(ledgers: Array<{ label: string; path: string }>, quick = false): Promise<PublishRow[]> {
  const rows: PublishRow[] = [];
  for (const { label, path } of ledgers) {
    const bytes = new Uint8Array(readFileSync(path));
    const repo = freshRepo();
    const store = new LocalGitStore({ repo, branch: 'work-queue' });
    const seeded = await store.compareAndSwap(null, bytes, 'seed');
    if (seeded.status !== 'committed') throw new Error(`could not seed ${label}`);
    const publisher = new Publisher(store);
    const { projection } = await publisher.cache.load(); // warm: the in-process projection is reused
    const repository = projection!.state.repository!;
    const principal = Object.keys((projection!.state.policy!.policy.producers ?? {}) as object)[0] ?? '1001';
    const samples = samplesFor(bytes.length, quick);
    const publishTimes: number[] = [];
    const hashTimes: number[] = [];
    const hashOnlyTimes: number[] = [];
    let publishCpu = 0;
    let hashCpu = 0;
    // A repository without the new blob: hash-object -w there really stores it (in the queue
    // repository the publication already stored it, and git then skips the write).
    const scratch = freshRepo();
    for (let i = -1; i < samples; i++) { // i = -1: one unmeasured warm-up round
      const c0 = treeCpuMs();
      const t0 = performance.now();
      const out = await publisher.publish({
        requestId: `bench-${label}-${i}`,
        actor: { role: 'producer', principal, repository },
        prepare: (p, ids) => submitRequest(p.state, [{ node_key: `bench-${i}`, payload: { i }, fairness_key: '' }], { graphId: 'bench', at: ids.at }),
      });
      const t1 = performance.now();
      const c1 = treeCpuMs();
      if (out.status !== 'committed') throw new Error(`publish ${i} on ${label}: ${out.status}`);
      const blob = execFileSync('git', ['-C', repo, 'cat-file', 'blob', 'work-queue:work-queue.jsonl'], { maxBuffer: 256 << 20 });
      const c2 = treeCpuMs();
      const h0 = performance.now();
      execFileSync('git', ['-C', scratch, 'hash-object', '-w', '--stdin'], { input: blob, maxBuffer: 1 << 20 });
      const h1 = performance.now();
      const c3 = treeCpuMs();
      execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: blob, maxBuffer: 1 << 20 });
      const h2 = performance.now();
      if (i < 0) continue;
      publishTimes.push(t1 - t0);
      hashTimes.push(h1 - h0);
      hashOnlyTimes.push(h2 - h1);
      publishCpu += c1 - c0;
      hashCpu += c3 - c2;
    }
    rmSync(repo, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
    const publishMs = median(publishTimes);
    const hashObjectMs = median(hashTimes);
    rows.push({
      label, bytes: bytes.length, samples, publishMs, hashObjectMs, ratio: publishMs / hashObjectMs,
      publishCpuMs: publishCpu / samples, hashObjectCpuMs: hashCpu / samples, cpuRatio: publishCpu / hashCpu, hashOnlyMs: median(hashOnlyTimes),
    });
  }
  return rows;
}
