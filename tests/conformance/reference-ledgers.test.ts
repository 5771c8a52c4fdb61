/**
 * Interoperability, stated truthfully (issue 10 §6; README "Reference compatibility").
 *
 * 1. Every ledger in ../shared/reference/ replays on the byte path (Uint8Array through the
 *    real framing) and reaches its expected tip and summary: the fixtures' ledgers
 *    (canonical-prefix, checkpoint.json's history and roots) and every gh-aw-generated/*.jsonl
 *    (ledger-16m is replayed by engine/replay/replay.test.ts and not twice here).
 * 2. The historical forms the spec keeps readable are read (a Policy-only genesis, spec 7.6:
 *    "Historical Policy-only genesis records remain readable"); the forms it retires are
 *    refused (pre-QueueCommit transaction logs, spec 7.2: "an old transaction version MUST fail
 *    validation").
 * 3. Which Fairway records a reader of the bda0dd04 reference schema set accepts: the
 *    records of its twelve operation and request kinds (including the combined Policy+Work
 *    genesis) validate against QueueCommit.json at bda0dd04; WorkPriority and Checkpoint
 *    records validate only against the later snapshots' schemas (spec 7.6: "older
 *    current-only readers reject these new closed operation shapes").
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { isProtocolError } from '../../engine/errors.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { buildCheckpointCommit } from '../../engine/replay/checkpoint.ts';
import { replayLedger, summarize, type Projection } from '../../engine/replay/index.ts';
import { reprioritizeRequest } from '../../engine/requests/admin.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { MemoryStore } from '../support/memory-store.ts';
import { buildSmallQueue } from '../support/small-queue.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { describeReference, missingReference, REFERENCE_ROOT } from '../support/reference.ts';

const FIXTURES = new URL('gh-aw/specs/work-queue/fixtures/', REFERENCE_ROOT);
const WORK_QUEUE = new URL('gh-aw/specs/work-queue/', REFERENCE_ROOT);
const SCHEMAS = new URL('gh-aw/pkg/workqueue/schema/', REFERENCE_ROOT);
const GENERATED = new URL('gh-aw-generated/', REFERENCE_ROOT);
const NEEDS = ['gh-aw/specs/work-queue/fixtures/canonical-prefix.json', 'gh-aw/specs/work-queue/fixtures/checkpoint.json', 'gh-aw/specs/work-queue/selection-fixtures.json', 'gh-aw/pkg/workqueue/schema/QueueCommit.json', 'gh-aw-generated/'];
const missing = missingReference(NEEDS);
/** Replayed (cold and incrementally) by engine/replay/replay.test.ts; a second 16 MiB replay here would cost seconds. */
const REPLAYED_ELSEWHERE = new Set(['ledger-16m.jsonl']);

type Json = Record<string, unknown>;
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const readJson = (url: URL): Json => JSON.parse(readFileSync(url, 'utf8')) as Json;
const jsonl = (commits: readonly unknown[]): string => commits.map((c) => `${canonicalize(c as JsonValue)}\n`).join('');

function codeOf(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
}

/** The summary without what a checkpoint root itself changes (tip, commit and request counts). */
function comparable(p: Projection): Json {
  const { tip: _tip, commits: _commits, requests: _requests, ...rest } = summarize(p);
  return rest;
}

type AjvClass = typeof Ajv2020Module.default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ?? Ajv2020Module) as AjvClass;
type AddFormats = typeof addFormatsModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as AddFormats;

function schemaValidator(file: string): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: false });
  addFormats(ajv);
  for (const keyword of ['x-utf8-max-bytes', 'x-forbid-ascii-controls', 'x-forbid-key-ascii-controls', 'x-key-min-utf8-bytes', 'x-key-utf8-max-bytes']) {
    ajv.addKeyword({ keyword, schemaType: ['number', 'boolean'] });
  }
  const validate = ajv.compile(readJson(new URL(file, SCHEMAS)));
  return (value) => validate(value) === true;
}

describeReference(missing.length === 0, 'reference ledgers replay on the byte path (conformance)', () => {
  it('canonical-prefix.json: the canonical ledger (Policy-only genesis, all twelve v3 operation kinds) verifies as bytes and reaches the fixture\'s final projection', () => {
    const fixture = readJson(new URL('canonical-prefix.json', FIXTURES)) as { canonical: string; commits: Json[]; prefixes: Array<{ tip: string; works: Record<string, { state: string; barrier: string }> }> };
    expect(jsonl(fixture.commits)).toBe(fixture.canonical);
    const p = replayLedger(bytes(fixture.canonical));
    const last = fixture.prefixes[fixture.prefixes.length - 1]!;
    expect(p.tip).toBe(last.tip);
    expect(p.commitCount).toBe(fixture.commits.length);
    const works: Record<string, { state: string; barrier: string }> = {};
    for (const w of p.works()) works[w.nodeKey] = { state: w.state, barrier: w.barrier };
    expect(works).toEqual(last.works);
    expect(fixture.commits[0]!.previous).toBeNull();
    expect((fixture.commits[0]!.request as Json).kind).toBe('policy'); // the historical Policy-only genesis form
  });

  it('checkpoint.json: the history verifies as bytes; each checkpoint root alone replays to the same projection as the history it replaces', () => {
    const fixture = readJson(new URL('checkpoint.json', FIXTURES)) as { history: Json[]; checkpoint: Json[]; genesis_checkpoint: Json[] };
    const history = replayLedger(bytes(jsonl(fixture.history)));
    expect(history.tip).toBe(fixture.history[fixture.history.length - 1]!.id);
    expect(history.commitCount).toBe(3);
    const root = replayLedger(bytes(jsonl(fixture.checkpoint)));
    expect(root.tip).toBe(fixture.checkpoint[0]!.id);
    expect(comparable(root)).toEqual(comparable(history));
    const genesisOnly = replayLedger(bytes(jsonl(fixture.history.slice(0, 1))));
    const genesisRoot = replayLedger(bytes(jsonl(fixture.genesis_checkpoint)));
    expect(genesisRoot.tip).toBe(fixture.genesis_checkpoint[0]!.id);
    expect(comparable(genesisRoot)).toEqual(comparable(genesisOnly));
  });

  const ledgers = missing.length === 0 ? readdirSync(GENERATED).filter((f) => f.endsWith('.jsonl')).sort() : [];
  it('gh-aw-generated: every reference-written ledger is replayed by this suite or by engine/replay/replay.test.ts', () => {
    expect(ledgers.length).toBeGreaterThan(0);
    for (const name of ledgers) {
      const size = statSync(new URL(name, GENERATED)).size;
      if (size > 4 * 1024 * 1024) expect(REPLAYED_ELSEWHERE.has(name), `${name} (${size} bytes): add it to engine/replay/replay.test.ts`).toBe(true);
    }
  });

  for (const name of ledgers.filter((n) => !REPLAYED_ELSEWHERE.has(n))) {
    it(`gh-aw-generated/${name}: verifies as bytes and matches its .summary.json (commits, request and operation kinds, tip = last causal record)`, () => {
      const raw = readFileSync(new URL(name, GENERATED));
      const p = replayLedger(new Uint8Array(raw));
      const lines = raw.toString('utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as { id: string; request: { kind: string }; operations: Array<{ kind: string }> });
      const summary = readJson(new URL(name.replace(/\.jsonl$/, '.summary.json'), GENERATED)) as { commits: number; operations: number; requestKinds: Record<string, number>; operationKinds: Record<string, number> };
      expect(p.commitCount).toBe(summary.commits);
      expect(p.tip).toBe(lines[lines.length - 1]!.id); // written in causal order
      const requestKinds: Record<string, number> = {};
      const operationKinds: Record<string, number> = {};
      for (const c of p.state.commits) requestKinds[c.kind] = (requestKinds[c.kind] ?? 0) + 1;
      for (const l of lines) for (const op of l.operations) operationKinds[op.kind] = (operationKinds[op.kind] ?? 0) + 1;
      expect(requestKinds).toEqual(summary.requestKinds);
      expect(operationKinds).toEqual(summary.operationKinds);
      expect(Object.values(operationKinds).reduce((a, b) => a + b, 0)).toBe(summary.operations);
      expect(p.state.claims.size).toBe(summary.operationKinds.Claim ?? 0);
      expect(p.state.works.size).toBe(summary.operationKinds.Work ?? 0);
    });
  }

  it('retired forms are refused: the pre-QueueCommit transaction log of selection-fixtures.json is rejected (schema_invalid), never read as a legacy queue', () => {
    const fixture = readJson(new URL('selection-fixtures.json', WORK_QUEUE)) as { transactions: Json[] };
    const text = fixture.transactions.map((t) => `${JSON.stringify(t)}\n`).join('');
    expect(codeOf(() => replayLedger(bytes(text)))).toBe('schema_invalid');
  });
});

describeReference(missing.length === 0, 'which Fairway records a reader of the bda0dd04 reference schemas accepts', () => {
  const v3 = missing.length === 0 ? schemaValidator('QueueCommit.json') : () => false;
  const demo = buildSmallQueue().ledger.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as Json & { request: Json; operations: Json[] });

  it('a Fairway-written queue (combined Policy+Work genesis, submit, grant, dispatch, finish, result, release): every record validates against QueueCommit.json at bda0dd04', () => {
    expect(demo[0]!.previous).toBeNull();
    expect(demo[0]!.request.kind).toBe('submit');
    expect(demo[0]!.operations.map((o) => o.kind).slice(0, 2)).toEqual(['Policy', 'Work']); // spec 7.6 combined genesis
    for (const [i, c] of demo.entries()) expect(v3(c), `record ${i + 1} (${String(c.request.kind)})`).toBe(true);
  });

  it('a Fairway WorkPriority record (reprioritize) is outside the bda0dd04 set: rejected by its QueueCommit.json, accepted by WorkPriorityOperation.json', async () => {
    const store = new MemoryStore('conformance');
    await store.compareAndSwap(null, bytes(buildSmallQueue().ledger), 'seed');
    const publisher = new Publisher(store);
    const { projection } = await publisher.cache.load();
    const work = [...projection!.works()].find((w) => w.state === 'available')!;
    const actor = { role: 'administrator', principal: '1', repository: projection!.state.repository! } as Actor;
    const outcome = await publisher.publish({ requestId: 'conformance-priority', actor, prepare: (p) => reprioritizeRequest(p.state, [work.workId], 1, 'operator.expedite') });
    expect(outcome.status).toBe('committed');
    const commit = (outcome as { commit: Json & { operations: Json[] } }).commit;
    expect(commit.operations[0]!.kind).toBe('WorkPriority');
    expect(v3(commit)).toBe(false);
    expect(schemaValidator('WorkPriorityOperation.json')(commit.operations[0])).toBe(true);
    // Fairway reads back what it wrote.
    expect(replayLedger((await store.read()).bytes!).work(work.workId)!.effectivePriority).toBe(1);
  });

  it('a Fairway checkpoint root (compact) is outside the bda0dd04 set: rejected by its QueueCommit.json, accepted by CheckpointOperation.json and CheckpointParameters.json', () => {
    const p = replayLedger(bytes(buildSmallQueue().ledger));
    const root = buildCheckpointCommit(p, { priorGitSha: 'e'.repeat(40), actor: { role: 'administrator', principal: '1', repository: p.state.repository! } as Actor, at: p.state.commits[p.state.commits.length - 1]!.at });
    const commit = JSON.parse(canonicalize(root as unknown as JsonValue)) as Json & { request: Json; operations: JsonObject[] };
    expect(v3(commit)).toBe(false);
    expect(schemaValidator('CheckpointOperation.json')(commit.operations[0])).toBe(true);
    expect(schemaValidator('CheckpointParameters.json')(commit.request.parameters)).toBe(true);
    expect(comparable(replayLedger(bytes(`${canonicalize(commit as unknown as JsonValue)}\n`)))).toEqual(comparable(p));
  });
});
