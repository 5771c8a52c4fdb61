/**
 * A dispatcher process for contention tests: `dispatcher.ts CLONE ID CALLS` publishes CALLS
 * single-Claim dispatch_next requests through the clone's remote `origin` with one warm
 * publisher (the default retry budget and pacing), and prints one JSON line: the Work granted,
 * the calls that exhausted their retries (with the error), CAS attempts and the longest losing streak.
 */
import { candidateCommitId } from '../../engine/identity/index.ts';
import { dispatchNextRequest } from '../../engine/requests/operations.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { RemoteGitStore } from '../../lib/store/remote-git.ts';

const [clone, id, calls] = process.argv.slice(2);
const publisher = new Publisher(new RemoteGitStore({ repo: clone!, remote: 'origin' }));
const granted: string[] = [];
const exhausted: string[] = [];
let attempts = 0;
let longest = 0;
for (let i = 0; i < Number(calls); i++) {
  let lost = 0;
  try {
    const out = await publisher.publish({
      requestId: `d${id}-${i}`,
      actor: { role: 'dispatcher', principal: '1' },
      prepare: (p, ids) => dispatchNextRequest(p, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, { requestId: ids.requestId, commitId: candidateCommitId(p.tip, ids.requestId) }, ids.at),
      onRetry: () => void (attempts++, (longest = Math.max(longest, ++lost))),
    });
    attempts++;
    if (out.status !== 'committed') throw new Error(`call ${i}: ${out.status}`);
    const claimId = out.projection.request(`d${id}-${i}`)!.claimIds[0]!;
    granted.push(out.projection.claim(claimId)!.workId);
  } catch (e) {
    if ((e as { code?: string }).code !== 'publish_retries_exhausted') throw e;
    exhausted.push((e as Error).message);
  }
}
process.stdout.write(JSON.stringify({ granted, exhausted, attempts, longest }));
process.exit(0);
