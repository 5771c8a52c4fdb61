/**
 * Contention (docs/performance.md "Contention"): N dispatchers looping single-Claim
 * dispatch_next calls on one queue, with the default retry budget, over
 * - `remote-cli`: a real `git daemon` on 127.0.0.1 serving a bare repository, each dispatcher
 *   in its own clone calling `fairway --remote origin dispatch-next` (a new process per call),
 *   the shape of the fault campaign that found the problem;
 * - `remote`: the same remote, each dispatcher one warm process (RemoteGitStore) publishing
 *   call after call (no start-up or cold read per call: only the race itself);
 * - `local`: one local repository shared by warm dispatcher processes (LocalGitStore).
 * Reports grants/s, pushes (CAS attempts) per committed call, calls that exhausted their
 * retries, and where an attempt's time and CPU go.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGitDaemon } from '../tests/store/git-daemon.ts';
import { treeCpuMs } from './cpu.ts';
import { captured } from '../tests/support/spawn.ts';

const HERE = import.meta.dirname;

export type ContentionStore = 'local' | 'remote' | 'remote-cli';

export interface ThroughputRow {
  store: ContentionStore;
  processes: number;
  grants: number;
  seconds: number;
  grantsPerSecond: number;
  /** CAS attempts lost (conflict or uncertain). */
  conflicts: number;
  pushes: number;
  pushesPerCommitted: number;
  exhausted: number;
  /** The most attempts a single call lost (its retry budget is 20). */
  longestLosingStreak: number;
  /** CPU of the dispatchers' process trees and of the git daemon's, per CAS attempt (ms). */
  cpuPerAttemptMs: number;
  /** Of which: the dispatchers' node processes (replay, build, validate, objects). */
  nodeCpuPerAttemptMs: number;
  /** Of which: the git daemon and its upload-pack / receive-pack processes (remote only). */
  daemonCpuPerAttemptMs: number;
  /** Summed wall time per debug event over all dispatchers (for the per-attempt breakdown). */
  phases: Record<string, { n: number; ms: number }>;
}

interface WorkerOut {
  grants: number;
  conflicts: number;
  pushes: number;
  exhausted: number;
  longest: number;
  ms: number;
  cpuMs: number;
  nodeCpuMs: number;
  phases: Record<string, { n: number; ms: number }>;
}

function bareRepo(dir: string): string {
  execFileSync('git', ['init', '-q', '--bare', dir]);
  return dir;
}

/**
 * CPU ms of a process tree (from /proc; 10 ms ticks): every live process under `pid`, with
 * the children each has waited for (`git daemon` runs as a child of the `git` it was started
 * as, and reaps one child per connection).
 */
function processTreeCpuMs(pid: number): number {
  const stats = new Map<number, string[]>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      stats.set(Number(name), stat.slice(stat.lastIndexOf(')') + 2).split(' '));
    } catch {
      // gone
    }
  }
  const inTree = (p: number): boolean => {
    for (let at = p, hops = 0; at > 1 && hops < 64; hops++) {
      if (at === pid) return true;
      at = Number(stats.get(at)?.[1] ?? 0);
    }
    return false;
  };
  let ms = 0;
  for (const [p, f] of stats) if (inTree(p)) ms += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
  return ms;
}

const BIN = join(HERE, '..', 'bin', 'fairway.js');

/** One dispatcher as the fault campaign ran it: `fairway dispatch-next` processes, one after another. */
async function runCliDispatcher(clone: string, id: number, calls: number): Promise<WorkerOut> {
  const out: WorkerOut = { grants: 0, conflicts: 0, pushes: 0, exhausted: 0, longest: 0, ms: 0, cpuMs: 0, nodeCpuMs: 0, phases: {} };
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const r = await captured(process.execPath, [BIN, '--dir', clone, '--remote', 'origin', '--json', '--request-id', `c${id}-${i}`, 'dispatch-next', '--max-claims', '1'], { ...process.env, DEBUG: 'work-queue:store', NO_COLOR: '1' });
    const cas = [...r.stderr.matchAll(/store cas outcome=(\w+)/g)].map((m) => m[1]);
    out.pushes += cas.length;
    out.conflicts += cas.filter((c) => c !== 'committed').length;
    out.longest = Math.max(out.longest, cas.filter((c) => c !== 'committed').length);
    for (const m of r.stderr.matchAll(/work-queue:store git command=(\S+) exit=\S+ ms=(\d+)/g)) {
      const p = (out.phases[`git ${m[1]}`] ??= { n: 0, ms: 0 });
      p.n += 1;
      p.ms += Number(m[2]);
    }
    const json = JSON.parse(r.stdout || '{}') as { ok?: boolean; granted_claims?: number; error?: { code?: string } };
    if (json.ok === true && (json.granted_claims ?? 0) > 0) out.grants += 1;
    else if (json.error?.code === 'publish_retries_exhausted') out.exhausted += 1;
    else throw new Error(`dispatcher ${id} call ${i}: ${r.stdout || r.stderr.slice(-400)}`);
  }
  out.ms = performance.now() - started;
  return out;
}

function runWorker(args: string[]): Promise<WorkerOut> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'dispatch-worker.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as WorkerOut) : reject(new Error(`worker ${args.join(' ')} exited ${code}`))));
  });
}

/** N dispatchers racing `perProcess` single-Claim dispatch_next calls each on one queue. */
export async function runContention(store: ContentionStore, n: number, perProcess: number): Promise<ThroughputRow> {
  const root = mkdtempSync(join(tmpdir(), 'fairway-contention-'));
  try {
    const bare = bareRepo(join(root, 'queue.git'));
    const nodes = join(root, 'nodes.json');
    writeFileSync(nodes, JSON.stringify(Array.from({ length: n * perProcess + 8 }, (_, i) => ({ node_key: `w${i}`, payload: { i }, fairness_key: '' }))));
    execFileSync(process.execPath, ['--import', 'tsx', join(HERE, 'dispatch-worker.ts'), 'seed', bare, nodes]);
    const daemon = store === 'local' ? null : await startGitDaemon(root);
    try {
      const targets = Array.from({ length: n }, (_, p) => {
        if (daemon === null) return bare;
        const clone = join(root, `clone-${p}.git`);
        execFileSync('git', ['clone', '-q', '--bare', daemon.url('queue.git'), clone], { stdio: 'ignore' });
        return clone;
      });
      const daemonCpu0 = daemon === null ? 0 : processTreeCpuMs(daemon.pid);
      const cliCpu0 = treeCpuMs();
      const outs = await Promise.all(targets.map((target, p) => (store === 'remote-cli' ? runCliDispatcher(target, p, perProcess) : runWorker(['grant', store, target, String(p), String(perProcess)]))));
      const daemonCpu = daemon === null ? 0 : processTreeCpuMs(daemon.pid) - daemonCpu0;
      // CLI processes are this process's children: their CPU (and their git's) is counted here.
      if (store === 'remote-cli') outs[0]!.cpuMs = treeCpuMs() - cliCpu0 - daemonCpu;
      // Throughput over the racing itself: the slowest worker's time from its first call to its
      // last (process start-up and the first cold read are not dispatching).
      const seconds = Math.max(...outs.map((o) => o.ms)) / 1000;
      const sum = (f: (o: WorkerOut) => number) => outs.reduce((a, o) => a + f(o), 0);
      const grants = sum((o) => o.grants);
      const pushes = sum((o) => o.pushes);
      const phases: ThroughputRow['phases'] = {};
      for (const o of outs) {
        for (const [k, v] of Object.entries(o.phases)) {
          const p = (phases[k] ??= { n: 0, ms: 0 });
          p.n += v.n;
          p.ms += v.ms;
        }
      }
      return {
        store, processes: n, grants, seconds, grantsPerSecond: grants / seconds, conflicts: sum((o) => o.conflicts), pushes,
        pushesPerCommitted: grants === 0 ? 0 : pushes / grants, exhausted: sum((o) => o.exhausted), longestLosingStreak: Math.max(...outs.map((o) => o.longest)),
        cpuPerAttemptMs: (sum((o) => o.cpuMs) + daemonCpu) / pushes, nodeCpuPerAttemptMs: sum((o) => o.nodeCpuMs) / pushes,
        daemonCpuPerAttemptMs: daemonCpu / pushes, phases,
      };
    } finally {
      await daemon?.stop();
    }
  } finally {
    rmSync(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }); // a git that just exited may still be flushing
  }
}

/** The contention table: each store at 1, 2, 4 and 8 dispatchers. */
export async function runThroughputBench(counts = [1, 2, 4, 8], perProcess = 8, stores: ContentionStore[] = ['remote-cli', 'remote', 'local']): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  for (const store of stores) for (const n of counts) rows.push(await runContention(store, n, perProcess));
  return rows;
}
