import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files that measure time or CPU (ratios, pacing, scale bounds, dispatcher contention):
 * they run one at a time, after the rest, so no other test file competes with them for the
 * machine's cores. Every other file runs two at a time (vitest's default on two cores is one).
 */
const TIMED = [
  'tests/integration/concurrency.test.ts',
  'tests/integration/contention.test.ts',
  'tests/issues/link-scale.test.ts',
  'tests/store/github.test.ts',
  'tests/store/github-faults.test.ts',
  'tests/store/github-graphql.test.ts',
  'tests/acceptance/cli-simulate-explain.test.ts',
  'tests/fake-github/commits.test.ts',
  'tests/bench/**/*.test.ts',
];

const ALL = ['engine/**/*.test.ts', 'lib/**/*.test.ts', 'cli/**/*.test.ts', 'mcp/**/*.test.ts', 'tests/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'parallel', include: ALL, exclude: [...configDefaults.exclude, ...TIMED], maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'timed', include: TIMED, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
