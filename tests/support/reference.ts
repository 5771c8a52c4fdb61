/**
 * Conformance suites read `../shared/reference/` (design/ARCHITECTURE.md). Outside CI a
 * checkout without that folder skips them with a clear message (e.g. a clone outside the
 * workspace). Under `CI=true` a missing reference is a FAILURE, never a silent skip: the
 * suite gets one failing test naming what is missing. vitest runs a skipped suite's factory
 * anyway, so suites that read fixtures at collection time go through these helpers.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/** `../shared/reference/` next to this checkout. */
export const REFERENCE_ROOT = new URL('../../../shared/reference/', import.meta.url);

/** True under CI (`CI=true`): the reference must be present. */
export function referenceRequired(): boolean {
  return process.env.CI === 'true';
}

/** For `describe.skipIf` / `it.skipIf`: skip only outside CI (under CI the suite runs, and fails on what is missing). */
export function referenceSkip(present: boolean): boolean {
  return !present && !referenceRequired();
}

export function describeReference(present: boolean, name: string, factory: () => void, needs: string = fileURLToPath(REFERENCE_ROOT)): void {
  if (present) describe(name, factory);
  else if (referenceRequired()) {
    describe(name, () => it(`reference data is missing under CI=true: ${needs}`, () => {
      throw new Error(`${name}: ${needs} is missing. Under CI the reference data is required (check out ../shared next to this repository).`);
    }));
  } else describe(name, () => it.skip(`../shared/reference is absent in this checkout: not checked (${needs})`, () => undefined));
}

/** Which of `paths` (relative to ../shared/reference/) are missing. */
export function missingReference(paths: readonly string[]): string[] {
  return paths.filter((p) => !existsSync(new URL(p, REFERENCE_ROOT)));
}
