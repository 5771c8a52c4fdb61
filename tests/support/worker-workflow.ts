/**
 * A minimal worker workflow for fixture repositories: bootstrap and `policy --from-config`
 * install only verified worker routes (lib/config/workers.ts), so a test repository that
 * bootstraps a queue commits this file on its default branch.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const WORKER_WORKFLOW = '.github/workflows/worker.lock.yml';

/**
 * The worker revision of in-memory test queues that never read a repository (a stand-in
 * commit SHA). Policies never carry the all-zero placeholder ref (lib/config/aw.ts).
 */
export const TEST_WORKER_REF = 'a1'.repeat(20);

export function workerWorkflowYaml(name = 'worker'): string {
  return [
    `name: ${name}`,
    '"on":',
    '  workflow_dispatch:',
    '    inputs:',
    '      work_queue_assignment:',
    '        description: bounded Claim array',
    '        required: true',
    '        type: string',
    'jobs:',
    '  agent:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    '      - run: echo work',
    '',
  ].join('\n');
}

/** Writes the worker workflow into a fixture repository's work tree (commit it with the rest). */
export function writeWorkerWorkflow(repo: string): void {
  mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
  writeFileSync(join(repo, WORKER_WORKFLOW), workerWorkflowYaml());
}
