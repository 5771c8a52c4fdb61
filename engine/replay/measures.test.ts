/**
 * measureRecord (measures.ts): what the record stage hands the fold, computed independently
 * here from each operation (the fold's own measures: canonicalSize of each evidence record and
 * Result descriptor, the derived Work id) over every record of a generated ledger.
 */
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { canonicalRecordSpans } from '../codec/canonical.ts';
import { canonicalSize } from '../codec/index.ts';
import { workId } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import type { QueueCommit } from '../schema/index.ts';
import { measureRecord } from './measures.ts';

const lines = generateLedger(1024 * 1024, 21).text.split('\n').slice(0, -1);
const commits = lines.map((l) => JSON.parse(l) as QueueCommit);

/** The largest size among `values` (0 for none). */
const largest = (values: JsonValue[]): number => values.reduce<number>((m, v) => Math.max(m, canonicalSize(v)), 0);

function expected(commit: QueueCommit): { workIdsVerified: boolean; evidenceBytes: number; descriptorBytes: number; payloadBytes: null } {
  const ops = commit.operations as unknown as JsonObject[];
  const evidence = ops.flatMap((op) => (op.kind === 'Observation' || op.kind === 'Control' ? [op] : ['Dispatch', 'Release', 'Result', 'DeliveryFailure'].includes(op.kind as string) && op.evidence !== undefined ? [op.evidence] : []));
  return {
    workIdsVerified: ops.every((op) => op.kind !== 'Work' || op.work_id === workId(op.graph_id as string, op.node_key as string)),
    evidenceBytes: largest(evidence as JsonValue[]),
    descriptorBytes: largest(ops.filter((op) => op.kind === 'Result').map((op) => op.descriptor as JsonValue)),
    payloadBytes: null,
  };
}

/** Each Work payload's canonical size by operation index (-1 for the others), or null without Work. */
function payloads(commit: QueueCommit): number[] | null {
  const ops = commit.operations as unknown as JsonObject[];
  return ops.some((op) => op.kind === 'Work') ? ops.map((op) => (op.kind === 'Work' ? canonicalSize(op.payload as JsonValue) : -1)) : null;
}

describe('measureRecord', () => {
  it('answers the largest evidence and descriptor sizes and the Work ids\' verdict of every record', () => {
    const kinds = new Set<string>();
    for (const commit of commits) {
      expect(measureRecord(commit)).toEqual(expected(commit));
      for (const op of commit.operations) kinds.add(op.kind);
    }
    // The ledger exercises what is measured.
    expect([...kinds].filter((k) => ['Work', 'Dispatch', 'Release', 'Result', 'DeliveryFailure'].includes(k)).sort()).toEqual(['DeliveryFailure', 'Dispatch', 'Release', 'Result', 'Work']);
    expect(commits.some((c) => measureRecord(c)!.descriptorBytes > 0 && measureRecord(c)!.evidenceBytes > 0)).toBe(true);
  });

  it('from the one-pass check\'s spans of an ASCII record: the same measures, and each Work payload\'s canonical size', () => {
    let works = 0;
    commits.forEach((commit, i) => {
      const spans = canonicalRecordSpans(lines[i]!, true)!.operations;
      expect(measureRecord(commit, spans)).toEqual({ ...expected(commit), payloadBytes: payloads(commit) });
      works += commit.operations.filter((op) => op.kind === 'Work').length;
    });
    expect(works).toBeGreaterThan(100);
  });

  it('spans that are not the record\'s operations (another count) are not used', () => {
    const commit = commits.find((c) => c.operations.some((op) => op.kind === 'Work'))!;
    expect(measureRecord(commit, [0, 1])).toEqual(expected(commit));
  });

  it('a Work id that is not derived from its graph and node is not verified', () => {
    const submit = structuredClone(commits.find((c) => c.operations.filter((op) => op.kind === 'Work').length > 1)!);
    const works = submit.operations.filter((op) => op.kind === 'Work') as Array<{ work_id: string }>;
    works[1]!.work_id = works[0]!.work_id;
    expect(measureRecord(submit)).toMatchObject({ workIdsVerified: false });
  });

  it('a record a measure refuses (a lone surrogate: not canonical) is not measured, so the fold measures it and names the error', () => {
    const withResult = structuredClone(commits.find((c) => c.operations.some((op) => op.kind === 'Result'))!);
    const result = withResult.operations.find((op) => op.kind === 'Result') as unknown as { descriptor: JsonObject };
    result.descriptor = { ...result.descriptor, summary: '\ud800' };
    expect(measureRecord(withResult)).toBeNull();
  });
});
