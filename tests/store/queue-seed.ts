/** A queue (Policy + one Work) bootstrapped on a local repository through the real publisher. */
import { bootstrapRequest } from '../../engine/requests/operations.ts';
import { defaultPolicy } from '../../engine/requests/writer.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';

export const QUEUE_REPOSITORY = 'acme/queue';

/** Bootstraps the queue with `works` Work (default 1) under a Policy whose limits never cap the grants of a test. */
export async function seedQueue(repo: string, works = 1): Promise<{ store: LocalGitStore; actor: Actor }> {
  const store = new LocalGitStore({ repo });
  const actor: Actor = { role: 'producer', principal: '1', repository: QUEUE_REPOSITORY };
  const policy = defaultPolicy({ repository: QUEUE_REPOSITORY, principal: '1', logicalLimit: 256, nativeLimit: 256 });
  const nodes = Array.from({ length: works }, (_, i) => ({ node_key: i === 0 ? 'seed' : `n${i}`, payload: { i } }));
  const out = await new Publisher(store).publish({
    requestId: 'seed', actor, prepare: () => { throw new Error('bootstraps'); },
    bootstrap: (ids) => bootstrapRequest(policy, 'e1', nodes, { graphId: 'g', at: ids.at }),
  });
  if (out.status !== 'committed') throw new Error('could not seed the queue');
  return { store, actor };
}
