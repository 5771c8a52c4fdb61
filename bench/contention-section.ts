/**
 * The publication and contention part of `npm run bench` (also alone: `npm run bench --
 * --only-section=contention`, written to bench/results/contention-section.json):
 * - local Git publication vs `git hash-object -w` of the same blob (bench/publish.ts);
 * - N = 1/2/4/8 dispatchers looping single-Claim dispatch_next (bench/contention.ts): grants/s,
 *   pushes per committed call, calls that exhausted their retries;
 * - the CPU of one publication attempt (bench/attempt-cost.ts).
 */
import { runAttemptCost } from './attempt-cost.ts';
import { runThroughputBench, type ThroughputRow } from './contention.ts';
import { runPublishBench, type PublishRow } from './publish.ts';

export interface ContentionSection {
  publication: PublishRow[];
  throughput: ThroughputRow[];
  attemptCost: Array<Awaited<ReturnType<typeof runAttemptCost>>>;
}

type Table = (header: string[], body: string[][], rightAlign?: boolean) => string;

export async function runContentionSection(ledgers: Array<{ label: string; path: string }>, quick: boolean, table: Table): Promise<ContentionSection> {
  const publication = await runPublishBench(ledgers, quick);
  console.log('\nPublication (warm publisher: version check + build + validate + write + CAS) vs `git hash-object -w` storing the same blob (target ≤ 1.3×); interleaved, wall medians and mean CPU of the process tree');
  console.log(table(['ledger', 'bytes', 'samples', 'publish ms', 'hash-object ms', 'wall ratio', 'publish CPU ms', 'hash-object CPU ms', 'CPU ratio', 'hash-object (blob already stored) ms'], publication.map((r) => [r.label, String(r.bytes), String(r.samples), r.publishMs.toFixed(1), r.hashObjectMs.toFixed(1), `${r.ratio.toFixed(2)}×`, r.publishCpuMs.toFixed(1), r.hashObjectCpuMs.toFixed(1), `${r.cpuRatio.toFixed(2)}×`, r.hashOnlyMs.toFixed(1)]), true));
  const throughput = await runThroughputBench([1, 2, 4, 8], quick ? 6 : 25);
  console.log('\nContention: N dispatchers looping single-Claim dispatch_next on one queue (default retry budget); remote-cli = a fairway process per call over git daemon, remote = warm processes over git daemon, local = warm processes on one repository');
  console.log(table(['store', 'dispatchers', 'grants', 'seconds', 'grants/s', 'vs 1', 'CAS retries', 'pushes/committed', 'exhausted', 'longest streak', 'CPU/attempt ms', 'node', 'daemon'], throughput.map((r) => {
    const one = throughput.find((o) => o.store === r.store && o.processes === 1)!.grantsPerSecond;
    return [r.store, String(r.processes), String(r.grants), r.seconds.toFixed(2), r.grantsPerSecond.toFixed(1), `${(r.grantsPerSecond / one).toFixed(2)}×`, String(r.conflicts), r.pushesPerCommitted.toFixed(2), String(r.exhausted), String(r.longestLosingStreak), r.cpuPerAttemptMs.toFixed(1), r.nodeCpuPerAttemptMs.toFixed(1), r.daemonCpuPerAttemptMs.toFixed(1)];
  }), true));
  const attemptCost = [await runAttemptCost('remote', quick ? 20 : 40), await runAttemptCost('local', quick ? 20 : 40)];
  console.log('\nCPU of one publication attempt, ms (warm dispatcher; each attempt after another writer added a commit): this process / its git processes / the git daemon');
  console.log(table(['store', 'read node', 'read git', 'read daemon', 'CAS node', 'CAS git', 'CAS daemon', 'tail+build+validate+confirm', 'spawn()', 'total'], attemptCost.map((r) => [r.store, r.read.node.toFixed(1), r.read.git.toFixed(1), r.read.daemon.toFixed(1), r.cas.node.toFixed(1), r.cas.git.toFixed(1), r.cas.daemon.toFixed(1), r.publisher.toFixed(1), r.spawnMs.toFixed(1), r.total.toFixed(1)]), true));
  return { publication, throughput, attemptCost };
}
