/**
 * The LedgerStore contract every store must meet (lib/store/types.ts, spec 7.1
 * and 7.7), run against each implementation with a fixture that can inspect
 * the authority (repository, remote, or fake GitHub) without the store.
 */
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../engine/errors.ts';
import { captureSnapshot } from '../../lib/intents/snapshot.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { MIN_BYTES } from '../../lib/replay/thread-verifier.ts';
import { LEDGER_FILE, type CasOutcome, type LedgerStore } from '../../lib/store/types.ts';

/** A file's content (mode 100644), or its bytes and mode; null removes the path. */
export type SeedFile = string | Uint8Array | { bytes: string | Uint8Array; mode: string } | null;

export interface StoreFixture {
  queueBranch: string;
  /** A new store instance on the same authority. */
  makeStore(): LedgerStore;
  /** The queue branch's tip, read directly from the authority. */
  tip(): Promise<string | null>;
  /** Commits files onto a branch of the authority (its tip as parent); returns the commit. */
  seed(branch: string, files: Record<string, SeedFile>): Promise<string>;
  /** Every file of a commit at the authority: path → mode and bytes. */
  files(commit: string): Promise<Map<string, { mode: string; bytes: Buffer }>>;
  parents(commit: string): Promise<string[]>;
  /** Points the authority's default branch (HEAD) at `branch`. */
  setDefaultBranch(branch: string): Promise<void>;
}

const utf8 = (s: string) => new TextEncoder().encode(s);

function committed(outcome: CasOutcome): string {
  if (outcome.status !== 'committed') throw new Error(`expected a commit, got ${JSON.stringify(outcome)}`);
  return outcome.version;
}

/** A ledger-like body of at least `bytes` bytes with multi-byte UTF-8 on every line. */
export function bigLedger(bytes: number): Uint8Array {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `{"n":${i},"payload":"ünïcødé ✓ 漢字 😀 ${'x'.repeat(i % 97)}"}\n`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  return utf8(lines.join(''));
}

function sameBytes(actual: Uint8Array | null, expected: Uint8Array): void {
  expect(actual).not.toBeNull();
  expect(Buffer.compare(Buffer.from(actual!), Buffer.from(expected))).toBe(0);
}

const OTHER_FILES: Record<string, SeedFile> = {
  'README.md': '# queue branch\n',
  '.github/workflows/aw.json': '{"work_queue":{}}\n',
  'tools/run.sh': { bytes: '#!/bin/sh\necho run\n', mode: '100755' },
  'docs/deep/nested/notes.txt': 'nested ✓\n',
};

export function contractSuite(name: string, makeFixture: () => Promise<StoreFixture>): void {
  describe(`LedgerStore contract: ${name}`, () => {
    it('reads an absent branch as an empty queue (spec 7.1)', async () => {
      const f = await makeFixture();
      expect(await f.makeStore().read()).toEqual({ version: null, bytes: null });
    });

    it('reads a queue branch whose tip dropped the ledger as ledger_missing, naming the commit that dropped it; one that never held it is an empty queue', async () => {
      const f = await makeFixture();
      // A branch without the file in its history: an empty queue at that tip.
      const bare = await f.seed(f.queueBranch, { 'README.md': '# queue branch\n' });
      expect(await f.makeStore().read()).toEqual({ version: bare, bytes: null });
      const store = f.makeStore();
      const v1 = committed(await store.compareAndSwap(bare, utf8('{"first":true}\n'), 'first'));
      const dropped = await f.seed(f.queueBranch, { [LEDGER_FILE]: null });
      expect((await f.files(dropped)).has(LEDGER_FILE)).toBe(false);
      const read = f.makeStore().read();
      await expect(read).rejects.toMatchObject({ code: 'ledger_missing', details: { commit: dropped } });
      await expect(read).rejects.toThrow(new RegExp(`tip ${dropped} has no ${LEDGER_FILE}`));
      expect(await f.tip()).toBe(dropped);
      expect(await f.parents(dropped)).toEqual([v1]);
    });

    it('reads the ledger at an earlier branch commit (a checkpoint\'s prior_git_sha, spec 7.17); an unknown commit is null', async () => {
      const f = await makeFixture();
      const store = f.makeStore();
      const first = utf8('{"first":"✓"}\n');
      const v1 = committed(await store.compareAndSwap(null, first, 'first'));
      const v2 = committed(await store.compareAndSwap(v1, utf8('{"second":true}\n'), 'second'));
      const reader = f.makeStore();
      expect(reader.readAt).toBeDefined();
      sameBytes(await reader.readAt!(v1), first);
      sameBytes(await reader.readAt!(v2), utf8('{"second":true}\n'));
      expect(await reader.readAt!(v1.replace(/./g, (c) => (c === '0' ? '1' : '0')))).toBeNull();
    });

    it('reads a branch without the ledger file as bytes null at that version', async () => {
      const f = await makeFixture();
      const seeded = await f.seed(f.queueBranch, { 'README.md': 'only a readme\n' });
      expect(await f.makeStore().read()).toEqual({ version: seeded, bytes: null });
    });

    it('creates the branch on the first CAS against null, with a root commit holding exactly the bytes', async () => {
      const f = await makeFixture();
      const store = f.makeStore();
      const bytes = utf8('{"genesis":true}\n');
      const version = committed(await store.compareAndSwap(null, bytes, 'genesis'));
      expect(await f.tip()).toBe(version);
      expect(await f.parents(version)).toEqual([]);
      expect([...(await f.files(version)).keys()]).toEqual([LEDGER_FILE]);
      const snapshot = await f.makeStore().read();
      expect(snapshot.version).toBe(version);
      sameBytes(snapshot.bytes, bytes);
    });

    it('returns exactly the bytes written: non-ASCII, CRLF, no final newline, empty, 5 MiB', async () => {
      const f = await makeFixture();
      const store = f.makeStore();
      const bodies = [utf8('é\r\n漢字 😀\u2028\u0000tail-without-newline'), new Uint8Array(0), bigLedger(5 * 1024 * 1024)];
      let version: string | null = null;
      for (const body of bodies) {
        version = committed(await store.compareAndSwap(version, body, 'write'));
        const snapshot = await f.makeStore().read();
        expect(snapshot.version).toBe(version);
        sameBytes(snapshot.bytes, body);
        // A ledger-sized read lands in memory replay's worker threads share: a threaded replay copies nothing.
        expect(snapshot.bytes!.buffer instanceof SharedArrayBuffer, `${body.length} bytes`).toBe(body.length >= MIN_BYTES);
        sameBytes((await f.files(version)).get(LEDGER_FILE)!.bytes, body);
      }
    });

    it('an existing but empty queue file is ledger_empty for the publisher, its reads and snapshot, and is never overwritten', async () => {
      const f = await makeFixture();
      const seeded = await f.seed(f.queueBranch, { [LEDGER_FILE]: new Uint8Array(0) });
      const store = f.makeStore();
      await expect(new Publisher(store).cache.load()).rejects.toMatchObject({ code: 'ledger_empty' });
      const submit = new Publisher(store).publish({
        requestId: 'submit-1',
        actor: { role: 'producer', principal: '1001', repository: 'owner/repo' },
        prepare: () => {
          throw new Error('an empty ledger must not be prepared against');
        },
        bootstrap: () => {
          throw new Error('an empty ledger must not be bootstrapped');
        },
      });
      await expect(submit).rejects.toMatchObject({ code: 'ledger_empty' });
      await expect(captureSnapshot({ store, branch: f.queueBranch, role: 'dispatcher', principal: '1001', now: 0 })).rejects.toMatchObject({ code: 'ledger_empty' });
      expect(await f.tip()).toBe(seeded);
    });

    it('a queue file committed as a symbolic link is store_path_not_a_file: its target path is never read as a ledger, and nothing is published over it', async () => {
      const f = await makeFixture();
      const seeded = await f.seed(f.queueBranch, { [LEDGER_FILE]: { bytes: '../elsewhere/work-queue.jsonl', mode: '120000' } });
      const store = f.makeStore();
      await expect(store.read()).rejects.toMatchObject({ code: 'store_path_not_a_file' });
      await expect(new Publisher(store).cache.load()).rejects.toMatchObject({ code: 'store_path_not_a_file' });
      expect(await f.tip()).toBe(seeded);
    });

    it('preserves every other file, mode and subdirectory of the branch', async () => {
      const f = await makeFixture();
      const seeded = await f.seed(f.queueBranch, OTHER_FILES);
      const before = await f.files(seeded);
      const store = f.makeStore();
      const { version } = await store.read();
      expect(version).toBe(seeded);
      const v1 = committed(await store.compareAndSwap(seeded, utf8('one\n'), 'first'));
      const v2 = committed(await store.compareAndSwap(v1, utf8('two\n'), 'second'));
      expect(await f.parents(v1)).toEqual([seeded]);
      expect(await f.parents(v2)).toEqual([v1]);
      const after = await f.files(v2);
      expect(after.get(LEDGER_FILE)).toEqual({ mode: '100644', bytes: Buffer.from('two\n') });
      after.delete(LEDGER_FILE);
      expect(after).toEqual(before);
    });

    it('reports a stale expected version as a conflict and leaves the branch where it was', async () => {
      const f = await makeFixture();
      const store = f.makeStore();
      const v1 = committed(await store.compareAndSwap(null, utf8('one\n'), 'one'));
      const v2 = committed(await store.compareAndSwap(v1, utf8('two\n'), 'two'));
      const stale = await f.makeStore().compareAndSwap(v1, utf8('stale\n'), 'stale');
      expect(stale.status).toBe('conflict');
      if (stale.status === 'conflict' && stale.actual !== undefined) expect(stale.actual).toBe(v2);
      expect(await f.tip()).toBe(v2);
      const again = await f.makeStore().compareAndSwap(null, utf8('genesis again\n'), 'again');
      expect(again.status).toBe('conflict');
      expect(await f.tip()).toBe(v2);
      sameBytes((await f.makeStore().read()).bytes, utf8('two\n'));
    });

    it('reports a conflict when the expected branch is absent, and creates nothing', async () => {
      const f = await makeFixture();
      const other = await f.seed('main', { 'README.md': 'main\n' });
      for (const expected of [other, 'f'.repeat(40)]) {
        const outcome = await f.makeStore().compareAndSwap(expected, utf8('x\n'), 'x');
        expect(outcome.status).toBe('conflict');
        if (outcome.status === 'conflict' && outcome.actual !== undefined) expect(outcome.actual).toBeNull();
        expect(await f.tip()).toBeNull();
      }
    });

    it('refuses a version that is not a commit id', async () => {
      const f = await makeFixture();
      await expect(f.makeStore().compareAndSwap('main', utf8('x'), 'x')).rejects.toMatchObject({ code: 'store_version_invalid' });
      expect(await f.tip()).toBeNull();
    });

    it('lets exactly one of two concurrent CAS on the same base commit', async () => {
      const f = await makeFixture();
      const a = f.makeStore();
      const b = f.makeStore();
      for (const base of [null, 'first-commit'] as const) {
        const expected = base === null ? null : (await a.read()).version;
        const [ra, rb] = await Promise.all([a.compareAndSwap(expected, utf8('from a\n'), 'a'), b.compareAndSwap(expected, utf8('from b\n'), 'b')]);
        const outcomes = [ra, rb];
        expect(outcomes.map((o) => o.status).sort()).toEqual(['committed', 'conflict']);
        const winner = outcomes.find((o) => o.status === 'committed') as { version: string };
        expect(await f.tip()).toBe(winner.version);
        const loser = outcomes.find((o) => o.status === 'conflict') as { actual?: string | null };
        if (loser.actual !== undefined) expect(loser.actual).toBe(winner.version);
        const snapshot = await f.makeStore().read();
        sameBytes(snapshot.bytes, utf8(winner === ra ? 'from a\n' : 'from b\n'));
        expect(await f.parents(winner.version)).toEqual(expected === null ? [] : [expected]);
      }
    });

    it('reads a file from the default branch, not from the queue branch', async () => {
      const f = await makeFixture();
      await f.seed('main', { '.github/workflows/aw.json': '{"work_queue":{"concurrency":4}}\n' });
      await f.seed(f.queueBranch, { '.github/workflows/aw.json': '{"queue branch copy":true}\n' });
      await f.setDefaultBranch('main');
      const store = f.makeStore();
      sameBytes(await store.readDefaultBranchFile('.github/workflows/aw.json'), utf8('{"work_queue":{"concurrency":4}}\n'));
      expect(await store.readDefaultBranchFile('.github/workflows/missing.json')).toBeNull();
      await expect(store.readDefaultBranchFile('.github/workflows')).rejects.toMatchObject({ code: 'store_path_not_a_file' });
      await expect(store.readDefaultBranchFile('../outside')).rejects.toBeInstanceOf(ProtocolError);
      // Spec 7.1: the default branch must differ from the queue branch.
      await f.setDefaultBranch(f.queueBranch);
      expect(await f.makeStore().readDefaultBranchFile('.github/workflows/aw.json')).toBeNull();
    });
  });
}
