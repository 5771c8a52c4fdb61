/**
 * A lost race on a real remote (`git daemon` on 127.0.0.1) costs only what is new: after the
 * compare-and-swap is refused because a rival dispatcher committed first, the publisher's
 * next read fetches only the rival's commit (its commit, tree and blob, sent as a delta
 * against the blob this clone already holds), replays only that commit on the projection it
 * kept (the candidate was validated on a fork, which is dropped), and commits on top of it.
 * docs/performance.md "Contention".
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { candidateCommitId } from '../../engine/identity/index.ts';
import { dispatchNextRequest, submitRequest } from '../../engine/requests/operations.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { configureDebug, setDebugSink } from '../../lib/debug/log.ts';
import { Publisher, type PublishInput } from '../../lib/publisher/publisher.ts';
import { RemoteGitStore } from '../../lib/store/remote-git.ts';
import type { LedgerStore } from '../../lib/store/types.ts';
import { startGitDaemon, type GitDaemon } from './git-daemon.ts';
import { gitSync, initRepo, removeTempDirs, tempDir } from './git-fixtures.ts';
import { QUEUE_REPOSITORY, seedQueue } from './queue-seed.ts';

let daemon: GitDaemon;
let base: string;

beforeAll(async () => {
  base = tempDir('refresh');
  daemon = await startGitDaemon(base);
});

afterAll(async () => {
  await daemon?.stop();
  removeTempDirs();
});

afterEach(() => {
  setDebugSink(null);
  configureDebug({});
});

const dispatcher: Actor = { role: 'dispatcher', principal: '1', repository: QUEUE_REPOSITORY };

function dispatchNext(requestId: string): PublishInput {
  return {
    requestId, actor: dispatcher,
    prepare: (p, ids) => dispatchNextRequest(p, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, { requestId: ids.requestId, commitId: candidateCommitId(p.tip, ids.requestId) }, ids.at),
  };
}

/** A clone of the served queue (through `port`, default the daemon's own). */
function cloneOf(name: string, port = daemon.port): string {
  const clone = initRepo();
  gitSync(clone, ['remote', 'add', 'origin', `git://127.0.0.1:${port}/${name}`]);
  return clone;
}

/** A TCP relay to the daemon that counts the bytes the daemon sends (what fetches and pushes download). */
async function countingRelay(port: number): Promise<{ port: number; received: () => number; stop: () => Promise<void> }> {
  let received = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (d: Buffer) => void (received += d.length));
    upstream.pipe(client);
    for (const s of [client, upstream]) {
      s.on('error', () => void [client, upstream].forEach((x) => x.destroy()));
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received: () => received,
    stop: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

describe('a conflict on a real remote refreshes only the new tail', () => {
  it('the retry fetches only the rival\'s commit, replays only it on the kept projection, and commits on top', async () => {
    const served = initRepo({ bare: true, dir: join(base, 'queue.git') });
    // A ledger of a few hundred KB (a cold read or a whole-blob fetch would show): 1,250 Works.
    const seeded = await seedQueue(served, 250);
    for (let k = 1; k <= 4; k++) {
      const nodes = Array.from({ length: 250 }, (_, i) => ({ node_key: `m${k}-${i}`, payload: { k, i } }));
      const out = await new Publisher(seeded.store).publish({ requestId: `more-${k}`, actor: seeded.actor, prepare: (p, ids) => submitRequest(p, nodes, { graphId: `g${k}`, at: ids.at }) });
      expect(out.status).toBe('committed');
    }
    const relay = await countingRelay(daemon.port);
    const mine = cloneOf('queue.git', relay.port);
    const rival = new Publisher(new RemoteGitStore({ repo: cloneOf('queue.git'), remote: 'origin' }));
    const inner = new RemoteGitStore({ repo: mine, remote: 'origin' });
    let raced = false;
    let rivalRunning = false; // the rival's own debug events are not this publisher's
    // The rival commits between this publisher's read and its compare-and-swap, once.
    const store: LedgerStore = new Proxy(inner, {
      get(target, key, receiver) {
        if (key !== 'compareAndSwapParts') return Reflect.get(target, key, receiver) as unknown;
        return async (...args: Parameters<RemoteGitStore['compareAndSwapParts']>) => {
          if (!raced) {
            raced = true;
            rivalRunning = true;
            const won = await rival.publish(dispatchNext('rival'));
            rivalRunning = false;
            expect(won.status).toBe('committed');
          }
          return target.compareAndSwapParts(...args);
        };
      },
    });
    const publisher = new Publisher(store);
    const warm = await publisher.cache.load();
    const kept = warm.projection!;
    const ledgerBytes = kept.validatedLength;
    expect(ledgerBytes).toBeGreaterThan(300_000);
    await rival.cache.load();
    const downloadedBefore = relay.received();

    const events: string[] = [];
    setDebugSink((l) => void (rivalRunning || events.push(l.replace(/^\S+ work-queue:/, ''))));
    configureDebug({ DEBUG: 'work-queue:replay,work-queue:memory,work-queue:store' });
    const outcome = await publisher.publish(dispatchNext('mine'));
    setDebugSink(null);

    expect(outcome).toMatchObject({ status: 'committed', attempts: 2 });
    expect(events.filter((e) => e.startsWith('store cas')).map((e) => /outcome=(\w+)/.exec(e)![1])).toEqual(['conflict', 'committed']);
    expect(events).toContain('memory discard reason=conflict kept=true');
    // Replay: no cold replay; one incremental replay of exactly one commit (the rival's), a few hundred bytes.
    expect(events.filter((e) => e.startsWith('replay cold'))).toEqual([]);
    const incremental = events.filter((e) => e.startsWith('replay incremental'));
    expect(incremental).toHaveLength(1);
    expect(incremental[0]).toMatch(/ commits=1 /);
    expect(Number(/appended_bytes=(\d+)/.exec(incremental[0]!)![1])).toBeLessThan(4096);
    // The projection kept is the one the publisher had: it took the rival's commit, then ours.
    expect(outcome.status === 'committed' && outcome.projection).toBe(kept);
    expect(kept.forked).toBe(false);
    expect(kept.request('rival')?.claimIds).toHaveLength(1);
    expect(kept.request('mine')?.claimIds).toHaveLength(1);
    // Downloaded from the daemon by the whole publication (the refusal of the first push, the
    // refetch, the second push's report): the rival's commit, tree and blob as a delta on the
    // blob this clone holds, not the ledger again (the ledger alone packs to ~130 KiB).
    const downloaded = relay.received() - downloadedBefore;
    await relay.stop();
    expect(downloaded).toBeGreaterThan(0);
    expect(downloaded).toBeLessThan(ledgerBytes / 50);
  }, 120_000);
});
