/**
 * The Observation builder refuses what replay refuses (spec 7.16): a ready gate needs a successful
 * read whose facts prove its condition, a merged PR its merge provenance. Same code as replay
 * (`observation_invalid`), by the same predicate (replay/ops/observation.ts `observationIncoherence`).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json.ts';
import type { OperationOf } from '../replay/context.ts';
import { observationIncoherence } from '../replay/ops/observation.ts';
import { observation } from './lifecycle.ts';

const PR: JsonObject = { kind: 'pull_request', repository: 'acme/library', number: 81 };
const ISSUE: JsonObject = { kind: 'issue', repository: 'acme/design', number: 12 };
const base = { id: 'o-1', observedAt: 1000, generation: 'initial' };

describe('observation() builder', () => {
  it('refuses a ready merged PR without merge_commit, a ready gate from a failed read, and a condition of the other kind (observation_invalid)', () => {
    for (const input of [
      { ...base, resource: PR, condition: 'merged' as const, satisfied: true },
      { ...base, resource: ISSUE, condition: 'completed' as const, satisfied: true, readStatus: 'not_found' as const },
      { ...base, resource: PR, condition: 'merged' as const, satisfied: true, mergeCommit: 'abc123', readStatus: 'rate_limited' as const },
      { ...base, resource: ISSUE, condition: 'merged' as const, satisfied: false },
    ]) {
      expect(() => observation(input), JSON.stringify(input)).toThrow(expect.objectContaining({ code: 'observation_invalid' }));
    }
  });

  it('builds what replay accepts: a ready merged PR with its merge_commit, a ready Issue, a waiting gate', () => {
    const built = [
      observation({ ...base, resource: PR, condition: 'merged', satisfied: true, mergeCommit: 'abc123' }),
      observation({ ...base, resource: ISSUE, condition: 'completed', satisfied: true }),
      observation({ ...base, resource: ISSUE, condition: 'closed', satisfied: false }),
      observation({ ...base, resource: PR, condition: 'merged', satisfied: false }),
    ];
    expect(built[0]).toMatchObject({ state: 'ready', read_status: 'ok', merged: true, merge_commit: 'abc123' });
    expect(built.map((o) => o.state)).toEqual(['ready', 'ready', 'waiting', 'waiting']);
    for (const op of built) expect(observationIncoherence(op as unknown as OperationOf<'Observation'>)).toBeNull();
  });
});
