/**
 * The publisher's retry loop (spec 7.7) over a scripted store: a LedgerStore with real
 * compare-and-swap semantics whose answers a test scripts per attempt (a rival's write
 * before the answer, an uncertain answer after or without writing). Bytes are real ledger
 * lines built by the engine's request builders and validated by replay.
 */
import { describe, expect, it } from 'vitest';
import { replayLedger, type Projection } from '../../engine/replay/index.ts';
import { reprioritizeRequest } from '../../engine/requests/admin.ts';
import { control } from '../../engine/requests/lifecycle.ts';
import { bootstrapRequest, type BuiltRequest } from '../../engine/requests/operations.ts';
import { LedgerWriter, defaultPolicy } from '../../engine/requests/writer.ts';
import { workId } from '../../engine/identity/index.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { reprioritizeAsRead } from '../../cli/commands/admin.ts';
import { actorOf } from '../../lib/publisher/actor.ts';
import { publishAdmin } from '../../lib/publisher/admin.ts';
import { Publisher, type PublishingActor } from '../../lib/publisher/publisher.ts';
import { publishRequest, thrownWhilePreparing } from '../../lib/publisher/requests.ts';
import type { CasOutcome, LedgerSnapshot, LedgerStore } from '../../lib/store/types.ts';

const REPOSITORY = 'acme/queue';
const T0 = Date.UTC(2026, 2, 1);
const admin: Actor = { role: 'administrator', principal: '1001', repository: REPOSITORY };
const producer: Actor = { role: 'producer', principal: '1001', repository: REPOSITORY };
const WORK = workId('g', 'a');
const encoder = new TextEncoder();

/** What the store does with one compare-and-swap. */
type Step = (store: ScriptedStore, expected: string | null, bytes: Uint8Array) => CasOutcome;

/** Real compare-and-swap. */
const land: Step = (store, expected, bytes) => store.swap(expected, bytes);
/** A rival's write lands first, then this attempt's own compare-and-swap (a conflict). */
const rivalFirst = (rival: LedgerWriter): Step => (store, expected, bytes) => {
  store.swap(store.version, encoder.encode(rival.text()));
  return store.swap(expected, bytes);
};
/** The write lands, but the answer is lost. */
const uncertainLanded: Step = (store, expected, bytes) => {
  store.swap(expected, bytes);
  return { status: 'uncertain', reason: 'response_lost' };
};
/** Nothing is written, and the answer is lost. */
const uncertainLost: Step = () => ({ status: 'uncertain', reason: 'request_timeout' });
/** A rival's write lands (the same request, on another tip), and this attempt's answer is lost. */
const uncertainRival = (rival: LedgerWriter): Step => (store) => {
  store.swap(store.version, encoder.encode(rival.text()));
  return { status: 'uncertain', reason: 'response_lost' };
};

class ScriptedStore implements LedgerStore {
  readonly label = 'scripted:queue';
  version: string | null;
  bytes: Uint8Array | null;
  private counter = 0;
  /** Every compare-and-swap attempted (expected version). */
  readonly attempts: Array<string | null> = [];
  /** Called at every read (the test inspects the publisher there). */
  onRead: () => void = () => {};

  constructor(ledger: string | null, private readonly script: Step[]) {
    this.bytes = ledger === null ? null : encoder.encode(ledger);
    this.version = ledger === null ? null : this.next();
  }

  private next(): string {
    this.counter += 1;
    return `v${this.counter}`;
  }

  swap(expected: string | null, bytes: Uint8Array): CasOutcome {
    if (expected !== this.version) return { status: 'conflict', actual: this.version };
    this.version = this.next();
    this.bytes = bytes.slice();
    return { status: 'committed', version: this.version };
  }

  async read(): Promise<LedgerSnapshot> {
    this.onRead();
    return { version: this.version, bytes: this.bytes === null ? null : this.bytes.slice() };
  }

  async compareAndSwap(expected: string | null, bytes: Uint8Array): Promise<CasOutcome> {
    this.attempts.push(expected);
    return (this.script.shift() ?? land)(this, expected, bytes);
  }

  async readDefaultBranchFile(): Promise<Uint8Array | null> {
    return null;
  }

  text(): string {
    return this.bytes === null ? '' : new TextDecoder().decode(this.bytes);
  }
}

/** A queue with one available Work `a` (priority 3). */
function queue(): LedgerWriter {
  const w = new LedgerWriter();
  w.publish('genesis', producer, T0, bootstrapRequest(defaultPolicy({ repository: REPOSITORY, principal: '1001' }), 'e1', [{ node_key: 'a', payload: {} }], { graphId: 'g', at: T0 }));
  return w;
}

/** The same ledger (for a rival to extend independently of the store). */
function copy(w: LedgerWriter): LedgerWriter {
  const rival = queue();
  expect(rival.text()).toBe(w.text());
  return rival;
}

describe('Publisher over a scripted store', () => {
  it('conflict then success: the lost attempt is discarded and the next prepares against the fresh projection; the cache never holds the tentative one', async () => {
    const base = queue();
    const rival = copy(base);
    rival.publish('rival', admin, T0 + 1, reprioritizeRequest(rival.state, [WORK], 2, 'operator.expedite'));
    const store = new ScriptedStore(base.text(), [rivalFirst(rival)]);
    const publisher = new Publisher(store);
    // What each attempt prepared on, as it was then (the cache validates the candidate on a fork of it).
    const seen: Array<{ projection: Projection; tip: string | null; commits: number; holding: boolean }> = [];
    // At each read: whether the cache held the request (the candidate is never cached before it is committed).
    const holding: boolean[] = [];
    store.onRead = () => holding.push(publisher.cache.current()?.projection.request('mine') !== undefined);
    const retries: string[] = [];

    const outcome = await publisher.publish({
      requestId: 'mine',
      actor: admin,
      now: () => T0 + 2,
      prepare: (projection) => {
        seen.push({ projection, tip: projection.tip, commits: projection.commitCount, holding: projection.request('mine') !== undefined });
        return reprioritizeRequest(projection, [WORK], 1, 'operator.expedite');
      },
      onRetry: ({ reason }) => retries.push(reason),
    });

    expect(outcome.status).toBe('committed');
    expect(retries).toEqual(['conflict']);
    expect(store.attempts).toHaveLength(2);
    // Attempt 1 prepared on the genesis and validated its candidate on a fork: the projection never held it.
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ tip: base.projection.tip, commits: 1, holding: false });
    // After the conflict the cache kept the validated projection without the lost candidate; attempt 2 read
    // the branch, replayed only the rival's commit on it, and prepared on the rival's tip.
    expect(holding).toEqual([false, false]);
    expect(seen[1]).toMatchObject({ tip: rival.projection.tip, commits: 2, holding: false });
    if (outcome.status !== 'committed') return;
    expect(outcome.commit.previous).toBe(rival.projection.tip);
    expect(outcome.attempts).toBe(2);
    // What the outcome carries is what the winning attempt built: the rival's priority is expected.
    expect(outcome.prepared.operations).toEqual([expect.objectContaining({ work_id: WORK, priority: 1, expected_priority: 2 })]);
    expect(outcome.commitId).toBe(outcome.commit.id);
    expect(outcome.replayed).toBe(false);
    // The branch holds genesis, the rival's and ours, and replays to the projection the cache holds.
    const replayed = replayLedger(encoder.encode(store.text()));
    expect(replayed.commits.map((c) => c.id)).toEqual([...rival.projection.commits.map((c) => c.id), outcome.commitId]);
    expect(publisher.cache.current()?.projection.tip).toBe(outcome.commitId);
  });

  it('uncertain, and the read-back shows the write landed: committed, written once', async () => {
    const store = new ScriptedStore(queue().text(), [uncertainLanded]);
    const publisher = new Publisher(store);
    const holding: boolean[] = [];
    store.onRead = () => holding.push(publisher.cache.current()?.projection.request('pause') !== undefined);
    const outcome = await publisher.publish({ requestId: 'pause', actor: admin, now: () => T0 + 1, prepare: () => control('grants_paused', true, 'operator.pause') });
    expect(outcome).toMatchObject({ status: 'committed', replayed: false, attempts: 1 });
    expect(store.attempts).toHaveLength(1);
    // The read-back was a read of the branch: the cache never held the unconfirmed candidate.
    expect(holding).toEqual([false, false]);
    const ledger = replayLedger(encoder.encode(store.text()));
    expect(ledger.request('pause')?.commitId).toBe(outcome.commitId);
    expect(ledger.commitCount).toBe(2);
  });

  it('uncertain, and the read-back shows the same request committed on another tip: request_replayed, nothing more written', async () => {
    const base = queue();
    const rival = copy(base);
    rival.publish('other', admin, T0 + 1, control('admission_paused', true, 'operator.pause'));
    const theirs = rival.publish('pause', admin, T0 + 2, control('grants_paused', true, 'operator.pause'));
    const store = new ScriptedStore(base.text(), [uncertainRival(rival)]);
    const outcome = await new Publisher(store).publish({ requestId: 'pause', actor: admin, now: () => T0 + 3, prepare: () => control('grants_paused', true, 'operator.pause') });
    expect(outcome).toMatchObject({ status: 'request_replayed', replayed: true, commitId: theirs.id, prepared: null });
    expect(store.attempts).toHaveLength(1);
    expect(store.text()).toBe(rival.text());
  });

  it('uncertain, and the read-back shows nothing committed: retried, committed once', async () => {
    const store = new ScriptedStore(queue().text(), [uncertainLost]);
    const publisher = new Publisher(store);
    // At each read: whether the cache held the request (projections are extended in place later).
    const holding: boolean[] = [];
    store.onRead = () => holding.push(publisher.cache.current()?.projection.request('pause') !== undefined);
    const retries: string[] = [];
    const outcome = await publisher.publish({
      requestId: 'pause', actor: admin, now: () => T0 + 1, prepare: () => control('grants_paused', true, 'operator.pause'),
      onRetry: ({ reason }) => retries.push(reason),
    });
    expect(outcome).toMatchObject({ status: 'committed', replayed: false, attempts: 2 });
    expect(retries).toEqual(['uncertain']);
    expect(store.attempts).toEqual(['v1', 'v1']);
    // The read-back and the retry read the branch; the cache never held the lost candidate.
    expect(holding).toEqual([false, false, false]);
    const ledger = replayLedger(encoder.encode(store.text()));
    expect(ledger.commits.filter((c) => ledger.request('pause')?.commitId === c.id)).toHaveLength(1);
    expect(ledger.commitCount).toBe(2);
  });

  it('a request already in the ledger is replayed without a write', async () => {
    const w = queue();
    const committed = w.publish('pause', admin, T0 + 1, control('grants_paused', true, 'operator.pause'));
    const store = new ScriptedStore(w.text(), []);
    let prepared = 0;
    const outcome = await new Publisher(store).publish({
      requestId: 'pause', actor: admin, now: () => T0 + 2,
      prepare: () => {
        prepared += 1;
        return control('grants_paused', true, 'operator.pause');
      },
    });
    expect(outcome).toMatchObject({ status: 'request_replayed', replayed: true, commitId: committed.id, prepared: null });
    expect(store.attempts).toEqual([]);
    // Prepared once, only to check that the retry means the same request.
    expect(prepared).toBe(1);
  });

  it('a no-write names no commit and carries what was prepared', async () => {
    const store = new ScriptedStore(queue().text(), []);
    const noWrite = { kind: 'control', parameters: { operations: [] }, noWrite: { code: 'no_change', message: 'nothing to do' } };
    const outcome = await new Publisher(store).publish({ requestId: 'noop', actor: admin, prepare: () => noWrite });
    expect(outcome).toMatchObject({ status: 'no_write', code: 'no_change', commitId: null, replayed: false, prepared: noWrite });
    expect(store.attempts).toEqual([]);
  });
});

describe('Publisher: the actor\'s repository', () => {
  it('an actor naming no repository publishes as the queue\'s (the ledger\'s)', async () => {
    const store = new ScriptedStore(queue().text(), []);
    const actor: PublishingActor = actorOf('administrator', '1001', { runId: '77', runAttempt: 1, workflow: '.github/workflows/ops.yml' });
    const outcome = await new Publisher(store).publish({ requestId: 'pause', actor, prepare: () => control('grants_paused', true, 'operator.pause') });
    if (outcome.status !== 'committed') throw new Error(outcome.status);
    expect(outcome.commit.actor).toEqual({ role: 'administrator', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/ops.yml', run_id: '77', run_attempt: 1 });
    // The retry of the same origin is the same request.
    const again = await new Publisher(store).publish({ requestId: 'pause', actor, prepare: () => control('grants_paused', true, 'operator.pause') });
    expect(again).toMatchObject({ status: 'request_replayed', commitId: outcome.commitId });
  });

  it('a genesis names bootstrapRepository, asked only when the publication creates the queue', async () => {
    const policy = defaultPolicy({ repository: REPOSITORY, principal: '1001' });
    const asked: string[] = [];
    const input = (requestId: string, key: string) => ({
      requestId,
      actor: actorOf('producer', '1001'),
      bootstrapRepository: () => {
        asked.push(requestId);
        return REPOSITORY;
      },
      prepare: () => bootstrapRequest(policy, 'e1', [{ node_key: key, payload: {} }], { graphId: 'g', at: T0 }),
      bootstrap: (candidate: { at: number }, actor: Actor) => {
        expect(actor.repository).toBe(REPOSITORY);
        return bootstrapRequest(policy, 'e1', [{ node_key: key, payload: {} }], { graphId: 'g', at: candidate.at });
      },
    });
    const store = new ScriptedStore(null, []);
    const publisher = new Publisher(store);
    const genesis = await publisher.publish(input('genesis', 'a'));
    expect(genesis).toMatchObject({ status: 'committed', bootstrap: true });
    expect(replayLedger(encoder.encode(store.text())).repository).toBe(REPOSITORY);
    expect(asked).toEqual(['genesis']);
  });

  it('a genesis whose actor names no repository and no bootstrapRepository is a bug, not a protocol answer', async () => {
    const store = new ScriptedStore(null, []);
    const failure = await new Publisher(store).publish({
      requestId: 'genesis', actor: actorOf('producer', '1001'),
      prepare: () => control('grants_paused', true, 'x'),
      bootstrap: () => bootstrapRequest(defaultPolicy({ repository: REPOSITORY, principal: '1001' }), 'e1', [{ node_key: 'a', payload: {} }], { graphId: 'g', at: T0 }),
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as { code?: string }).code).toBeUndefined();
    expect(store.attempts).toEqual([]);
  });
});

describe('publishRequest: refused while preparing', () => {
  it('a builder\'s error is known to have written nothing, even after a conflict; a store error is not', async () => {
    const base = queue();
    const rival = copy(base);
    rival.publish('rival', admin, T0 + 1, control('admission_paused', true, 'operator.pause'));
    const store = new ScriptedStore(base.text(), [rivalFirst(rival)]);
    let calls = 0;
    const refused = await publishRequest(new Publisher(store), {
      requestId: 'mine', actor: admin,
      prepare: (projection) => {
        calls += 1;
        // The second attempt, on the rival's tip, refuses.
        return reprioritizeRequest(projection, calls === 1 ? [WORK] : ['w_unknown'], 1, 'operator.expedite');
      },
    }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'unknown_work' });
    expect(thrownWhilePreparing(refused)).toBe(true);
    expect(store.attempts).toHaveLength(1);

    const broken = new ScriptedStore(base.text(), [() => { throw new Error('socket closed'); }]);
    const failed = await publishRequest(new Publisher(broken), { requestId: 'x', actor: admin, prepare: () => control('grants_paused', true, 'x') }).catch((e: unknown) => e);
    expect(thrownWhilePreparing(failed)).toBe(false);
  });
});

describe('reprioritize after a lost race (operator reference: "If another grant or priority change makes an action stale, the action is rejected")', () => {
  /** The CLI's body and review (cli/commands/admin.ts publishAction): the review decides on what it reads. */
  const asTheCliDoes = () => {
    const source = reprioritizeAsRead([WORK], 1, 'operator.expedite');
    return { body: source.body, review: (projection: Projection, build: () => BuiltRequest) => (source.decide(projection), build()) };
  };

  it('the CLI\'s body refuses when a rival moved the priority it read (priority_conflict, the rival\'s ledger kept); a rival\'s unrelated change is retried and committed', async () => {
    const base = queue();
    const rival = copy(base);
    rival.publish('rival', admin, T0 + 1, reprioritizeRequest(rival.state, [WORK], 2, 'operator.expedite'));
    const store = new ScriptedStore(base.text(), [rivalFirst(rival)]);
    const refused = await publishAdmin(new Publisher(store), { requestId: 'mine', actor: admin, action: 'reprioritize', ...asTheCliDoes() }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'priority_conflict', details: { work_id: WORK, expected_priority: 3, priority: 2 } });
    expect(thrownWhilePreparing(refused)).toBe(true);
    expect(store.attempts).toHaveLength(1);
    expect(store.text()).toBe(rival.text());

    const other = copy(base);
    other.publish('rival', admin, T0 + 1, control('admission_paused', true, 'operator.pause'));
    const calm = new ScriptedStore(base.text(), [rivalFirst(other)]);
    const outcome = await publishAdmin(new Publisher(calm), { requestId: 'mine', actor: admin, action: 'reprioritize', ...asTheCliDoes() });
    expect(outcome.status).toBe('committed');
    expect(calm.attempts).toHaveLength(2);
    expect(replayLedger(calm.text()).work(WORK)?.effectivePriority).toBe(1);

    // Its own write landing with the answer lost is recognised as its own commit, not as a rival's change.
    const lost = new ScriptedStore(base.text(), [uncertainLanded]);
    const recovered = await publishAdmin(new Publisher(lost), { requestId: 'mine', actor: admin, action: 'reprioritize', ...asTheCliDoes() });
    expect(recovered).toMatchObject({ status: 'committed', replayed: false });
    expect(lost.attempts).toHaveLength(1);
    expect(replayLedger(lost.text()).work(WORK)?.effectivePriority).toBe(1);
  });
});
