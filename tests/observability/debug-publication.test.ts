/**
 * Debug events of the checked publication path under contention (issue 15 §3): a lost
 * compare-and-swap is a `store cas outcome=conflict`, the cached candidate is discarded and the
 * retry names its backoff; an uncertain write is recovered by reading the request id back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { bootstrapRequest, submitRequest } from '../../engine/requests/operations.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { defaultWorkQueueSettings, policyFromSettings } from '../../lib/config/aw.ts';
import { MemoryStore } from '../support/memory-store.ts';
import { configureDebug, setDebugSink } from '../../lib/debug/log.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import type { CasOutcome } from '../../lib/store/types.ts';

const actor: Actor = { role: 'producer', principal: '1', repository: 'acme/queue' };
const node = (k: string) => ({ node_key: k, payload: { plan: `plan-${k}` } });

/** A store whose next compare-and-swap first lets `before` run, or answers uncertain after writing. */
class Contended extends MemoryStore {
  before: (() => Promise<void>) | null = null;
  uncertainOnce = false;
  override async compareAndSwap(expected: string | null, bytes: Uint8Array, message: string): Promise<CasOutcome> {
    const hook = this.before;
    this.before = null;
    if (hook !== null) await hook();
    const outcome = await super.compareAndSwap(expected, bytes, message);
    if (this.uncertainOnce && outcome.status === 'committed') {
      this.uncertainOnce = false;
      return { status: 'uncertain', reason: 'timeout' };
    }
    return outcome;
  }
}

async function seeded(): Promise<Contended> {
  const store = new Contended('contended');
  const policy = policyFromSettings(defaultWorkQueueSettings(), { repository: 'acme/queue', principal: '1', profile: { ref: 'c'.repeat(40) } });
  await new Publisher(store).publish({ requestId: 'seed', actor, prepare: () => { throw new Error('bootstraps'); }, bootstrap: (ids) => bootstrapRequest(policy, 'e1', [node('a')], { graphId: 'g', at: ids.at }) });
  return store;
}

const submit = (publisher: Publisher, id: string, key: string) => publisher.publish({ requestId: id, actor, prepare: (p, ids) => submitRequest(p.state, [node(key)], { graphId: 'g', at: ids.at }) });

afterEach(() => {
  setDebugSink(null);
  configureDebug({});
});

describe('publication debug events', () => {
  it('a lost compare-and-swap: conflict, discard, a retry with its delay, then committed on the next attempt', async () => {
    const store = await seeded();
    const lines: string[] = [];
    setDebugSink((l) => lines.push(l.replace(/^\S+ work-queue:/, '')));
    configureDebug({ DEBUG: 'work-queue:store,work-queue:memory' });
    const rival = new Publisher(store);
    store.before = async () => {
      await submit(rival, 'rival', 'b');
    };
    const outcome = await submit(new Publisher(store), 'mine', 'c');
    expect(outcome).toMatchObject({ status: 'committed', attempts: 2 });
    const mine = lines.slice(lines.findIndex((l) => l.startsWith('store attempt attempt=1')));
    const order = ['store attempt attempt=1', 'store cas outcome=committed', 'store cas outcome=conflict', 'memory discard reason=conflict', 'store retry attempt=1 reason=conflict delay_ms=', 'store attempt attempt=2', 'store cas outcome=committed', 'store published outcome=committed attempts=2 operations=1'];
    let at = -1;
    for (const step of order) {
      const next = mine.findIndex((l, i) => i > at && l.startsWith(step));
      expect(next, `${step} after ${mine[at]}\n${mine.join('\n')}`).toBeGreaterThan(at);
      at = next;
    }
  });

  it('an uncertain write is recovered by request id: recovered committed=true, no retry', async () => {
    const store = await seeded();
    const lines: string[] = [];
    setDebugSink((l) => lines.push(l.replace(/^\S+ work-queue:/, '')));
    configureDebug({ DEBUG: 'work-queue:*' });
    store.uncertainOnce = true;
    expect(await submit(new Publisher(store), 'mine', 'c')).toMatchObject({ status: 'committed', attempts: 1 });
    expect(lines.some((l) => /^store cas outcome=uncertain bytes=\d+ ms=\d+$/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('memory discard reason=uncertain'))).toBe(true);
    expect(lines).toContain('store recovered attempt=1 committed=true replayed=false');
    expect(lines.some((l) => l.startsWith('store retry'))).toBe(false);
    for (const l of lines) expect(l.includes('plan-c') || l.includes('mine') || l.includes('acme')).toBe(false);
  });
});
