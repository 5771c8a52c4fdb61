/**
 * What one publication attempt's CPU is made of (docs/performance.md, "Contention"): a warm
 * publisher makes attempts one after another, each after another writer added one commit (so
 * every read brings a new commit, as under contention), and the CPU of each part is measured
 * on its own: this process (JavaScript, spawning, zlib), the git processes it runs (its own
 * children: fetch, push and theirs, update-ref, the long-lived cat-file), and, for the remote,
 * the `git daemon` side (upload-pack, receive-pack and theirs). Children's CPU comes from /proc
 * in 10 ms ticks, so each figure is an average over many attempts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { candidateCommitId } from '../engine/identity/index.ts';
import { bootstrapRequest, dispatchNextRequest, submitRequest } from '../engine/requests/operations.ts';
import { defaultPolicy } from '../engine/requests/writer.ts';
import { Publisher } from '../lib/publisher/publisher.ts';
import { LocalGitStore } from '../lib/store/local-git.ts';
import { RemoteGitStore } from '../lib/store/remote-git.ts';
import type { CasOutcome, LedgerSnapshot, LedgerStore } from '../lib/store/types.ts';
import { startGitDaemon } from '../tests/store/git-daemon.ts';
import { childrenCpuMs } from './cpu.ts';

export interface AttemptCostRow {
  store: 'remote' | 'local';
  attempts: number;
  /** Per attempt, ms of CPU. */
  read: { node: number; git: number; daemon: number };
  cas: { node: number; git: number; daemon: number };
  /** The rest of the attempt in this process: the new tail replayed, the request built, validated on a fork, confirmed. */
  publisher: number;
  /** CPU of one spawn() call in this process (fork + exec of git), measured alone. */
  spawnMs: number;
  total: number;
}

interface Meter { node: number; git: number; daemon: number }

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
  let ms = 0;
  for (const [p, f] of stats) {
    for (let at = p, hops = 0; at > 1 && hops < 64; hops++, at = Number(stats.get(at)?.[1] ?? 0)) {
      if (at === pid) {
        ms += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
        break;
      }
    }
  }
  return ms;
}

/** A store that adds the CPU of its reads and compare-and-swaps to meters. */
class Metered implements LedgerStore {
  readonly label: string;
  readonly read_: Meter = { node: 0, git: 0, daemon: 0 };
  readonly cas_: Meter = { node: 0, git: 0, daemon: 0 };
  readonly readVersion?: () => Promise<string | null>;

  constructor(private readonly inner: LedgerStore, private readonly daemonPid: number | null) {
    this.label = inner.label;
    if (inner.readVersion !== undefined) this.readVersion = () => this.measure(this.read_, () => inner.readVersion!());
  }

  /** CPU this process spent reading /proc for the meters (kept out of every figure). */
  overheadMs = 0;

  private async measure<T>(meter: Meter, f: () => Promise<T>): Promise<T> {
    // The /proc reads of the meters themselves are kept outside the measured window.
    const o0 = process.cpuUsage();
    const d0 = this.daemonPid === null ? 0 : processTreeCpuMs(this.daemonPid);
    const c0 = childrenCpuMs();
    const o1 = process.cpuUsage(o0);
    const n0 = process.cpuUsage();
    try {
      return await f();
    } finally {
      const n = process.cpuUsage(n0);
      const o2 = process.cpuUsage();
      meter.node += (n.user + n.system) / 1000;
      meter.git += childrenCpuMs() - c0;
      if (this.daemonPid !== null) meter.daemon += processTreeCpuMs(this.daemonPid) - d0;
      const o3 = process.cpuUsage(o2);
      this.overheadMs += (o1.user + o1.system + o3.user + o3.system) / 1000;
    }
  }

  read(): Promise<LedgerSnapshot> {
    return this.measure(this.read_, () => this.inner.read());
  }

  compareAndSwap(expected: string | null, bytes: Uint8Array, message: string): Promise<CasOutcome> {
    return this.measure(this.cas_, () => this.inner.compareAndSwap(expected, bytes, message));
  }

  compareAndSwapParts(expected: string | null, parts: readonly Uint8Array[], message: string): Promise<CasOutcome> {
    return this.measure(this.cas_, () => this.inner.compareAndSwapParts!(expected, parts, message));
  }

  readDefaultBranchFile(path: string): Promise<Uint8Array | null> {
    return this.inner.readDefaultBranchFile(path);
  }
}

/** CPU of one `spawn` in this process (the fork and exec), without the child's own CPU. */
function spawnCostMs(samples = 30): number {
  let total = 0;
  for (let i = 0; i < samples; i++) {
    const n0 = process.cpuUsage();
    execFileSync('git', ['--version']);
    const n = process.cpuUsage(n0);
    total += (n.user + n.system) / 1000;
  }
  return total / samples;
}

export async function runAttemptCost(store: 'remote' | 'local', attempts = 40): Promise<AttemptCostRow> {
  const root = mkdtempSync(join(tmpdir(), 'fairway-attempt-'));
  const bare = join(root, 'queue.git');
  execFileSync('git', ['init', '-q', '--bare', bare]);
  const repository = 'bench/queue';
  const producer = { role: 'producer' as const, principal: '1', repository };
  const policy = defaultPolicy({ repository, principal: '1', logicalLimit: 256, nativeLimit: 256 });
  await new Publisher(new LocalGitStore({ repo: bare })).publish({
    requestId: 'seed', actor: producer, prepare: () => { throw new Error('bootstraps'); },
    bootstrap: (ids) => bootstrapRequest(policy, 'e1', Array.from({ length: attempts + 4 }, (_, i) => ({ node_key: `w${i}`, payload: { i } })), { graphId: 'g', at: ids.at }),
  });
  const daemon = store === 'remote' ? await startGitDaemon(root) : null;
  try {
    const clone = (name: string): string => {
      const dir = join(root, name);
      execFileSync('git', ['clone', '-q', '--bare', daemon!.url('queue.git'), dir], { stdio: 'ignore' });
      return dir;
    };
    const open = (dir: string): LedgerStore => (daemon === null ? new LocalGitStore({ repo: bare }) : new RemoteGitStore({ repo: dir, remote: 'origin' }));
    const metered = new Metered(open(daemon === null ? bare : clone('dispatcher.git')), daemon?.pid ?? null);
    const dispatcher = new Publisher(metered);
    const other = new Publisher(open(daemon === null ? bare : clone('other.git')));
    await dispatcher.cache.load();
    await other.cache.load();
    let publisherMs = 0;
    for (let i = 0; i < attempts; i++) {
      // Another writer adds a commit: this attempt reads it first, as after a lost race.
      await other.publish({ requestId: `o${i}`, actor: producer, prepare: (p, ids) => submitRequest(p.state, [{ node_key: `o${i}`, payload: { i } }], { graphId: 'o', at: ids.at }) });
      const r0 = { ...metered.read_ };
      const c0 = { ...metered.cas_ };
      const o0 = metered.overheadMs;
      const n0 = process.cpuUsage();
      const out = await dispatcher.publish({
        requestId: `d${i}`,
        actor: { role: 'dispatcher', principal: '1' },
        prepare: (p, ids) => dispatchNextRequest(p.state, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, { requestId: ids.requestId, commitId: candidateCommitId(p.tip, ids.requestId) }, ids.at),
      });
      if (out.status !== 'committed') throw new Error(`attempt ${i}: ${out.status}`);
      const n = process.cpuUsage(n0);
      publisherMs += (n.user + n.system) / 1000 - (metered.read_.node - r0.node) - (metered.cas_.node - c0.node) - (metered.overheadMs - o0);
    }
    const per = (m: Meter) => ({ node: m.node / attempts, git: m.git / attempts, daemon: m.daemon / attempts });
    const read = per(metered.read_);
    const cas = per(metered.cas_);
    const publisher = publisherMs / attempts;
    return { store, attempts, read, cas, publisher, spawnMs: spawnCostMs(), total: read.node + read.git + read.daemon + cas.node + cas.git + cas.daemon + publisher };
  } finally {
    await daemon?.stop();
    rmSync(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }); // a git that just exited may still be flushing
  }
}
