/**
 * Replayed Work definitions are read back from their admitting records (engine/state/definitions.ts,
 * engine/replay/definitions.ts): the fold never reads one, and every read gives the operation the
 * ledger admitted, whatever reads it (a fork's view, a spread, JSON) and whatever the input was
 * (bytes, text, an append). Records folded any other way keep their definitions as values.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replacementRequest } from '../lifecycle/replacement.ts';
import { bootstrapRequest, dispatchNextRequest } from '../requests/operations.ts';
import { candidateCommitId } from '../identity/index.ts';
import { defaultPolicy, LedgerWriter } from '../requests/writer.ts';
import { definedBySource } from '../state/definitions.ts';
import { appendLedger, replayLedger } from './index.ts';
import { REPOSITORY, step, T0 } from '../../tests/support/checkpoint-ledgers.ts';
import { backingIssuesLedger, checkpointOf } from '../../tests/support/checkpoints.ts';
import { expectDefinitionsOf, replayCountingDefinitionReads } from '../../tests/support/definitions.ts';
import { utf8 } from '../../tests/support/bytes.ts';
import { referenceSkip } from '../../tests/support/reference.ts';
import { producer, reconciler } from '../../tests/acceptance/queue.ts';

const LEDGER_1M = new URL('../../../shared/reference/gh-aw-generated/ledger-1m.jsonl', import.meta.url);

/** Grants, finishes, Results, delivery failures and, last, a replacement of a delivery-failed Work. */
function busyLedger(steps: number): LedgerWriter {
  const w = new LedgerWriter();
  const policy = defaultPolicy({ repository: REPOSITORY, principal: '1001', weights: { alpha: 1, beta: 2, gamma: 3 }, logicalLimit: 8, nativeLimit: 4, maxClaims: 2 });
  w.publish('bootstrap', { ...producer, repository: REPOSITORY }, T0 - 1000, bootstrapRequest(policy, 'epoch-1', [{ node_key: 'seed', payload: { seed: 'ß ✓ 🚀 "quoted" \\ ] }' } }], { graphId: 'seed', at: T0 - 1000 }));
  for (let i = 0; i < steps; i++) step(w, i);
  const failed = [...w.state.works.values()].find((x) => x.barrier === 'failed');
  if (failed === undefined) throw new Error('the busy ledger has no delivery-failed Work to replace');
  const at = w.state.commits.at(-1)!.at + 1;
  w.publish('replace', { ...reconciler, role: 'administrator', repository: REPOSITORY }, at, replacementRequest(w.state, { failedWorkId: failed.workId, node_key: 'again', payload: { again: true }, disposition: 'idempotent', evidence: 'remediation-1' }, at));
  return w;
}

describe('replayed Work definitions', () => {
  it('the fold reads no definition, and each reads back as the operation its record admitted (grants, Results, delivery failures, a replacement)', () => {
    const w = busyLedger(30);
    const { projection, reads } = replayCountingDefinitionReads(w.text());
    expect(reads).toBe(0);
    expect(expectDefinitionsOf(projection, w.text())).toBeGreaterThan(30);
    expect([...projection.works()].filter((x) => x.replacementOf !== null)).toHaveLength(1);
    // The writer folded its own commits: its records keep their definitions as values, the same ones.
    for (const work of projection.works()) {
      const written = w.state.works.get(work.workId)!;
      expect(definedBySource(work)).toBe(true);
      expect(definedBySource(written)).toBe(false);
      expect(work.definition).toEqual(written.definition);
    }
  });

  it('backing Issues: the fold reads no definition, and backingIssue is the admitted backing_issue', () => {
    const { ledger, b } = backingIssuesLedger();
    const { projection, reads } = replayCountingDefinitionReads(ledger);
    expect(reads).toBe(0);
    expectDefinitionsOf(projection, ledger);
    expect(projection.work(b)!.backingIssue).not.toBeNull();
  });

  it('a text input, an append and a fork\'s view read the same definitions', () => {
    const lines = busyLedger(12).text().split('\n').filter((l) => l !== '');
    const head = `${lines.slice(0, 20).join('\n')}\n`;
    const tail = `${lines.slice(20).join('\n')}\n`;
    const whole = head + tail;
    const fromText = replayLedger(whole); // text input: records kept as text
    expectDefinitionsOf(fromText, whole);
    const appended = replayLedger(utf8(head));
    appendLedger(appended, utf8(tail));
    expectDefinitionsOf(appended, whole);
    const fork = appended.fork();
    expectDefinitionsOf(fork, whole);
    for (const work of fork.works()) expect(work.definition).toEqual(appended.work(work.workId)!.definition);
  });

  it('forks of forks read the same definitions and fold appended grants (three levels)', () => {
    const lines = busyLedger(30).text().split('\n').filter((l) => l !== '');
    const half = Math.floor(lines.length / 2);
    const head = `${lines.slice(0, half).join('\n')}\n`;
    const tail = `${lines.slice(half).join('\n')}\n`;
    let fork = replayLedger(utf8(head));
    for (let depth = 1; depth <= 3; depth++) {
      fork = fork.fork();
      expectDefinitionsOf(fork, head + tail);
    }
    appendLedger(fork, utf8(tail));
    expectDefinitionsOf(fork, head + tail);
  });

  it('a grant\'s assignments carry the admitted payloads: planned on a replayed projection as on the writer\'s own state', () => {
    const w = busyLedger(30);
    const projection = replayLedger(utf8(w.text()));
    const at = w.state.commits.at(-1)!.at + 1;
    const input = { pool: 'default', max_claims: 8, max_dispatches: 4, max_bytes: 49152 };
    const ids = { requestId: 'grant-check', commitId: candidateCommitId(w.state.tip, 'grant-check') };
    const replayed = dispatchNextRequest(projection, input, ids, at).plan.groups.map((g) => g.assignment);
    const written = dispatchNextRequest(w.state, input, ids, at).plan.groups.map((g) => g.assignment);
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed).toEqual(written);
  });

  it('a spread, Object.keys and JSON of a replayed Work carry its definition and nothing of where it is read from', () => {
    const w = busyLedger(30);
    const projection = replayLedger(utf8(w.text()));
    for (const work of projection.works()) {
      const written = w.state.works.get(work.workId)!;
      expect(Object.keys(work)).toContain('definition');
      expect({ ...work }).toEqual({ ...written });
      const json = JSON.stringify(work);
      expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(written)));
      expect(json).not.toContain('definitionSource');
      expect(JSON.parse(JSON.stringify(work.position))).toEqual({ ordinal: work.position.ordinal, operation: work.position.operation });
    }
  });

  it('a checkpoint keeps every definition: the restored Works hold as values what the compacted ones read back', () => {
    const { ledger } = backingIssuesLedger();
    const original = replayLedger(utf8(ledger));
    const restored = replayLedger(utf8(checkpointOf(ledger)));
    expect([...restored.works()]).toHaveLength([...original.works()].length);
    for (const work of restored.works()) {
      expect(definedBySource(work)).toBe(false);
      const before = original.work(work.workId)!;
      expect(work.definition).toEqual(before.definition);
      expect([work.executionRef, work.backingIssue, work.replacementOf]).toEqual([before.executionRef, before.backingIssue, before.replacementOf]);
    }
  });

  it('a Work whose record is not canonical: admission measures its payload\'s canonical size, and the fold reads no definition', () => {
    const lines = busyLedger(30).text().split('\n').filter((l) => l !== '');
    // The first submit after the genesis, its payload members in reverse order: a legal record, not a canonical one.
    const at = lines.findIndex((l, i) => i > 0 && (JSON.parse(l) as { request: { kind: string } }).request.kind === 'submit');
    const commit = JSON.parse(lines[at]!) as { operations: Array<{ payload: Record<string, unknown> }> };
    for (const op of commit.operations) op.payload = Object.fromEntries(Object.entries(op.payload).reverse());
    lines[at] = JSON.stringify(commit);
    const ledger = `${lines.join('\n')}\n`;
    const { projection, reads } = replayCountingDefinitionReads(ledger);
    expect(expectDefinitionsOf(projection, ledger)).toBeGreaterThan(30);
    expect(reads).toBe(0);
    expect(projection.work((commit.operations[0] as unknown as { work_id: string }).work_id)!.claims.length).toBeGreaterThan(0); // granted: its size was packed
  });

  it.skipIf(referenceSkip(existsSync(LEDGER_1M)))('the reference-written ledger-1m: the fold reads no definition, and each reads back as admitted', () => {
    const text = readFileSync(LEDGER_1M, 'utf8');
    const { projection, reads } = replayCountingDefinitionReads(text);
    expect(reads).toBe(0);
    expect(expectDefinitionsOf(projection, text)).toBeGreaterThan(100);
  });
});
