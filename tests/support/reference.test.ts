/**
 * Under CI the reference data every conformance suite reads must be present: a missing
 * `../shared/reference` (or one of its files) fails here by name instead of skipping
 * those suites silently. Outside CI this only reports what is present.
 */
import { describe, expect, it } from 'vitest';
import { missingReference, referenceRequired } from './reference.ts';

const NEEDED = [
  'gh-aw/MANIFEST.md',
  'gh-aw/pkg/workqueue/schema/',
  'gh-aw/specs/work-queue/fixtures/contract.json',
  'gh-aw/specs/work-queue/fixtures/canonical-prefix.json',
  'gh-aw/specs/work-queue/fixtures/checkpoint.json',
  'gh-aw/specs/work-queue/fixtures/selection.json',
  'gh-aw-generated/ledger-1m.jsonl',
  'gh-aw-generated/ledger-1m.summary.json',
  'gh-aw-generated/ledger-16m.jsonl',
  'gh-aw-generated/ledger-16m.summary.json',
];

describe('reference data (../shared/reference)', () => {
  it.runIf(referenceRequired())('is present under CI=true (conformance suites never skip in CI)', () => {
    expect(missingReference(NEEDED), 'missing under ../shared/reference/').toEqual([]);
  });
});
