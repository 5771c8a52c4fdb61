/**
 * A contention benchmark worker (bench/contention.ts).
 *
 *   seed REPO NODES.json                      creates the queue on a local repository
 *   grant local REPO ID N                     N dispatch_next calls through a warm publisher on REPO
 *   grant remote CLONE ID N                   the same through CLONE's remote `origin` (a git daemon)
 *
 * Prints one JSON line: grants, conflicts (CAS attempts lost), pushes (CAS attempts), exhausted
 * calls, the time from the first call to the last, the CPU time of this process and of the git
 * processes it ran, and where the wall time of the attempts went (debug events, summed).
 */
import { readFileSync } from 'node:fs';
import { candidateCommitId } from '../engine/identity/index.ts';
import { bootstrapRequest, dispatchNextRequest } from '../engine/requests/operations.ts';
import { defaultPolicy } from '../engine/requests/writer.ts';
import { configureDebug, setDebugSink } from '../lib/debug/log.ts';
import { Publisher } from '../lib/publisher/publisher.ts';
import { LocalGitStore } from '../lib/store/local-git.ts';
import { RemoteGitStore } from '../lib/store/remote-git.ts';
import { treeCpuMs } from './cpu.ts';

const [mode, ...rest] = process.argv.slice(2);
const repository = 'bench/queue';

if (mode === 'seed') {
  const [repo, nodesPath] = rest;
  const publisher = new Publisher(new LocalGitStore({ repo: repo!, branch: 'work-queue' }));
  const nodes = JSON.parse(readFileSync(nodesPath!, 'utf8'));
  const policy = defaultPolicy({ repository, principal: '1', logicalLimit: 256, nativeLimit: 256 });
  await publisher.publish({
    requestId: 'seed',
    actor: { role: 'producer', principal: '1', repository },
    prepare: () => { throw new Error('queue exists already'); },
    bootstrap: (ids) => bootstrapRequest(policy, 'bench-1', nodes, { graphId: 'bench', at: ids.at }),
  });
  process.exit(0);
}

const [kind, repo, id, count] = rest;
const store = kind === 'remote' ? new RemoteGitStore({ repo: repo!, remote: 'origin', branch: 'work-queue' }) : new LocalGitStore({ repo: repo!, branch: 'work-queue' });
const publisher = new Publisher(store);

// Wall time per debug event (the attempt's phases), summed over the run.
const phases: Record<string, { n: number; ms: number }> = {};
setDebugSink((line) => {
  const m = /work-queue:(\S+) (\S+)(.*)$/.exec(line);
  if (m === null) return;
  const [, ns, event, fields] = m;
  const command = / command=(\S+)/.exec(fields!)?.[1];
  const key = command !== undefined ? `git ${command}` : `${ns} ${event}${/ outcome=(\S+)/.exec(fields!)?.[1] ? ` ${/ outcome=(\S+)/.exec(fields!)![1]}` : ''}`;
  const ms = Number(/ (?:ms|delay_ms)=(\d+)/.exec(fields!)?.[1] ?? 0);
  const p = (phases[key] ??= { n: 0, ms: 0 });
  p.n += 1;
  p.ms += ms;
});
configureDebug({ DEBUG: 'work-queue:store,work-queue:replay,work-queue:memory' });

// As users run it: the default retry budget (20 attempts), decorrelated-jitter backoff.
let grants = 0;
let conflicts = 0;
let pushes = 0;
let exhausted = 0;
let longest = 0; // the most attempts one call lost
await publisher.cache.load(); // warm, as a long-running dispatcher is
const cpu0 = treeCpuMs();
const node0 = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < Number(count); i++) {
  let lost = 0;
  try {
    const out = await publisher.publish({
      requestId: `w${id}-${i}`,
      actor: { role: 'dispatcher', principal: '1', repository },
      prepare: (p, ids) => dispatchNextRequest(p.state, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, { requestId: ids.requestId, commitId: candidateCommitId(p.tip, ids.requestId) }, ids.at),
      onRetry: () => {
        conflicts += 1;
        pushes += 1;
        longest = Math.max(longest, ++lost);
      },
    });
    if (out.status === 'committed') {
      grants += 1;
      pushes += 1; // the committed compare-and-swap itself
    }
  } catch (e) {
    if ((e as { code?: string }).code !== 'publish_retries_exhausted') throw e;
    exhausted += 1;
  }
}
const ms = performance.now() - started;
const node = process.cpuUsage(node0);
process.stdout.write(JSON.stringify({ grants, conflicts, pushes, exhausted, longest, ms, cpuMs: treeCpuMs() - cpu0, nodeCpuMs: (node.user + node.system) / 1000, phases }));
process.exit(0);
