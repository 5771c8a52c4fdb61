/**
 * Replayed Work definitions (engine/state/definitions.ts): replay reads a Work's definition back
 * from its admitting record when asked. These helpers check that the fold itself never asks (a
 * read per grant made replay twice as slow once) and that what is read back is the operation
 * the ledger admitted.
 */
import { expect, vi } from 'vitest';
import { canonicalSize } from '../../engine/codec/index.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { payloadBytes } from '../../engine/scheduler/assignment.ts';
import { RecordDefinitions } from '../../engine/replay/definitions.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { replayBytes } from './bytes.ts';

/** Cold replay of `ledger` as bytes, counting the definitions read while it folds. */
export function replayCountingDefinitionReads(ledger: string | Uint8Array): { projection: Projection; reads: number } {
  const spy = vi.spyOn(RecordDefinitions.prototype, 'workDefinition');
  try {
    const projection = replayBytes(ledger);
    return { projection, reads: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

/** Each record's operations by commit id, parsed from the ledger's text. */
export function admittedOperations(ledger: string): Map<string, JsonObject[]> {
  const byCommit = new Map<string, JsonObject[]>();
  for (const line of ledger.split('\n')) {
    if (line === '') continue;
    const commit = JSON.parse(line) as { id: string; operations: JsonObject[] };
    byCommit.set(commit.id, commit.operations);
  }
  return byCommit;
}

/**
 * Every Work of `projection` (replayed from `ledger`) has the definition its admitting record
 * wrote, and what the fold keeps of it (fields, the measured payload size) agrees with it. Answers the number of Works checked.
 */
export function expectDefinitionsOf(projection: Projection, ledger: string): number {
  const operations = admittedOperations(ledger);
  let n = 0;
  for (const work of projection.works()) {
    const admitted = operations.get(work.admittedCommit)?.[work.position.operation];
    expect(admitted, `Work ${work.workId}`).toBeDefined();
    expect(work.definition, `Work ${work.workId}`).toEqual(admitted);
    expect(work.executionRef).toBe(admitted!.execution_ref ?? null);
    expect(work.backingIssue).toEqual(admitted!.backing_issue ?? null);
    expect(work.replacementOf).toBe((admitted!.replacement_of as { work_id?: string } | undefined)?.work_id ?? null);
    expect(payloadBytes(work), `Work ${work.workId}: payload size`).toBe(canonicalSize(admitted!.payload as JsonValue));
    n++;
  }
  return n;
}
