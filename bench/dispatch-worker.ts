/** A benchmark worker: `seed REPO NODES.json` creates the queue; `grant REPO ID N` publishes N dispatch_next requests. */
import { readFileSync } from 'node:fs';
import { candidateCommitId } from '../engine/identity/index.ts';
import { bootstrapRequest, dispatchNextRequest } from '../engine/requests/operations.ts';
import { defaultPolicy } from '../engine/requests/writer.ts';
import { Publisher } from '../lib/publisher/publisher.ts';
import { LocalGitStore } from '../lib/store/local-git.ts';

const [mode, repo, arg1, arg2] = process.argv.slice(2);
const publisher = new Publisher(new LocalGitStore({ repo: repo!, branch: 'work-queue' }));
const repository = 'bench/queue';

if (mode === 'seed') {
  const nodes = JSON.parse(readFileSync(arg1!, 'utf8'));
  const policy = defaultPolicy({ repository, principal: '1', logicalLimit: 256, nativeLimit: 256 });
  await publisher.publish({
    requestId: 'seed',
    actor: { role: 'producer', principal: '1', repository },
    prepare: () => { throw new Error('queue exists already'); },
    bootstrap: (ids) => bootstrapRequest(policy, 'bench-1', nodes, { graphId: 'bench', at: ids.at }),
  });
} else {
  // As users run it: the default retry budget (20 attempts), decorrelated-jitter backoff.
  let grants = 0;
  let conflicts = 0;
  let pushes = 0;
  let exhausted = 0;
  const started = performance.now();
  for (let i = 0; i < Number(arg2); i++) {
    try {
      const out = await publisher.publish({
        requestId: `w${arg1}-${i}`,
        actor: { role: 'dispatcher', principal: '1', repository },
        prepare: (p, ids) => dispatchNextRequest(p.state, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, { requestId: ids.requestId, commitId: candidateCommitId(p.tip, ids.requestId) }, ids.at),
        onRetry: () => { conflicts += 1; pushes += 1; },
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
  process.stdout.write(JSON.stringify({ grants, conflicts, pushes, exhausted, ms: performance.now() - started }));
}
