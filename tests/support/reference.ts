/**
 * Conformance suites read `../shared/reference/` (design/ARCHITECTURE.md: skip
 * with a clear message where that folder is absent, e.g. a clone outside the
 * workspace). vitest runs a skipped suite's factory anyway, so suites that
 * read fixtures at collection time go through this helper instead.
 */
import { describe, it } from 'vitest';

export function describeReference(present: boolean, name: string, factory: () => void): void {
  if (present) describe(name, factory);
  else describe(name, () => it.skip('../shared/reference is absent in this checkout: not checked', () => undefined));
}
