/**
 * The reusable Action (`action.yml`) end to end: its composite step script runs under bash
 * exactly as GitHub would run it (inputs through the environment), with the queue ledger on
 * the GitHub stand-in's Git data API: dispatcher `dispatch`, worker `activate` + `settle`,
 * then `reconcile` after the worker run ends.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayLedger } from '../../engine/replay/index.ts';
import { actionRoutes, actions, setRunStatus } from '../fake-github/routes-actions.ts';
import { issueRoutes, repoIssues } from '../fake-github/routes-issues.ts';
import { labelRoutes } from '../fake-github/routes-labels.ts';
import { pullRoutes } from '../fake-github/routes-pulls.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { actionQueue } from './action-queue.ts';
import { countOps, PRINCIPAL, REPOSITORY, TOKEN, WORKFLOW } from './harness.ts';
import { ROOT, stepScript } from '../support/action-step.ts';

const run = promisify(execFile);

let fake: FakeGitHub;
let temp: string;
beforeAll(async () => {
  fake = await createFakeGitHub({ routes: [...labelRoutes, ...issueRoutes, ...pullRoutes, ...actionRoutes] });
  temp = mkdtempSync(join(tmpdir(), 'fairway-action-'));
});
afterAll(async () => {
  expect(fake.violations).toEqual([]);
  await fake.close();
  rmSync(temp, { recursive: true, force: true });
});

async function step(name: string, env: Record<string, string>): Promise<unknown> {
  const output = join(temp, `output-${name}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(output, '');
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? temp, FAIRWAY_STEP: name, FAIRWAY_REPOSITORY: REPOSITORY, FAIRWAY_BRANCH: 'work-queue',
    GH_TOKEN: TOKEN, FAIRWAY_DISPATCH_TOKEN: '', FAIRWAY_OBSERVE_TOKEN: '', FAIRWAY_PRINCIPAL: PRINCIPAL, FAIRWAY_GITHUB_API_URL: fake.url,
    GITHUB_ACTION_PATH: ROOT, RUNNER_TEMP: temp, GITHUB_OUTPUT: output, GITHUB_REPOSITORY: REPOSITORY, GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '1',
    IN_POOL: 'default', IN_MAX_CLAIMS: '1', IN_MAX_DISPATCHES: '1', IN_REF: '', IN_ASSIGNMENT: '', IN_OUTCOMES: '', IN_DISPATCH_ID: '', IN_HANDLE: '',
    IN_OUTCOME: '', IN_CLAIM_ID: '', IN_EVIDENCE: '', IN_DESCRIPTOR: '', IN_RECEIPTS: '',
    IN_ISSUES: 'true', FAIRWAY_ISSUES_TOKEN: '', FAIRWAY_ISSUES_WRITE_INTERVAL_MS: '0',
  };
  await run('bash', ['-c', stepScript()], { env: { ...base, ...env } as NodeJS.ProcessEnv, cwd: temp, maxBuffer: 1 << 24, encoding: 'utf8' });
  const text = readFileSync(output, 'utf8');
  const m = /result<<FAIRWAY_RESULT_EOF\n([\s\S]*)\nFAIRWAY_RESULT_EOF/.exec(text);
  return JSON.parse(m![1]!);
}

describe('action.yml', () => {
  it('caches its runtime dependencies under a key from the lockfile, and installs only on a miss', () => {
    const text = readFileSync(join(ROOT, 'action.yml'), 'utf8');
    const keyOf = (lock: string): string => {
      const dir = mkdtempSync(join(temp, 'lock-'));
      writeFileSync(join(dir, 'package-lock.json'), lock);
      const output = join(dir, 'out');
      writeFileSync(output, '');
      execFileSync('bash', ['-c', stepScript('fairway-cache-key')], { cwd: dir, env: { PATH: process.env.PATH ?? '', RUNNER_OS: 'Linux', GITHUB_OUTPUT: output } as Record<string, string> as NodeJS.ProcessEnv });
      return /^key=(.+)$/m.exec(readFileSync(output, 'utf8'))![1]!;
    };
    const a = keyOf('{"lockfileVersion":3}\n');
    expect(a).toMatch(new RegExp(`^fairway-Linux-node${process.versions.node.split('.')[0]}-[0-9a-f]{32}$`));
    expect(keyOf('{"lockfileVersion":3}\n')).toBe(a);
    expect(keyOf('{"lockfileVersion":3,"x":1}\n')).not.toBe(a);
    expect(text).toMatch(/- id: fairway-cache\n\s+name: .*\n\s+uses: actions\/cache@v4\n\s+with:\n\s+path: \|\n\s+\$\{\{ github\.action_path \}\}\/node_modules\n\s+\$\{\{ github\.action_path \}\}\/dist\n\s+key: \$\{\{ steps\.fairway-cache-key\.outputs\.key \}\}/);
    expect(text).toMatch(/- name: Install Fairway\n\s+if: steps\.fairway-cache\.outputs\.cache-hit != 'true'/);
  });

  it('dispatch, activate, settle and reconcile through the composite step script, each projecting its Work into the backing Issue', async () => {
    const { repo, store } = await actionQueue(fake);
    const labels = () => [...(repoIssues(fake.state, repo)[0]?.labels ?? [])].sort();

    // The dispatcher job's own run (GitHub sets GITHUB_WORKFLOW_REF in every job): the marker's one sender (spec 7.8).
    const dispatcherEnv = { GITHUB_WORKFLOW_REF: `${REPOSITORY}/.github/workflows/dispatcher.yml@refs/heads/main` };
    const dispatched = await step('dispatch', dispatcherEnv) as { launches: Array<{ outcome: string; run_id: string; dispatch_id: string }> };
    expect(dispatched.launches).toEqual([expect.objectContaining({ outcome: 'bound', run_id: '9007199254740993' })]);
    const worker = actions(fake.state).runs.at(-1)!;
    // The dispatcher projected the granted Work: one Issue, running.
    expect(repoIssues(fake.state, repo)).toHaveLength(1);
    expect(labels()).toEqual(['work', 'work:running']);

    const workerEnv = { GITHUB_RUN_ID: worker.id, GITHUB_WORKFLOW_REF: `${REPOSITORY}/${WORKFLOW}@refs/heads/main` };
    const activated = await step('activate', { ...workerEnv, IN_ASSIGNMENT: String(worker.inputs.work_queue_assignment) }) as { binding: string; assignment: { claims: Array<{ claim_id: string }> } };
    expect(activated.binding).toBe('already_bound');
    const claimId = activated.assignment.claims[0]!.claim_id;
    const outcomes = join(temp, 'outcomes');
    mkdirSync(outcomes);
    writeFileSync(join(outcomes, `${claimId}.outcome`), 'completed\n');
    writeFileSync(join(outcomes, `${claimId}.json`), JSON.stringify({ schema: 'fairway.delivery/1', dispatch_id: dispatched.launches[0]!.dispatch_id, claim_id: claimId, run_id: worker.id, complete: true, outputs: [] }));
    const settled = await step('settle', { ...workerEnv, IN_OUTCOMES: outcomes }) as Array<{ finish: { status: string }; result: { outcome: string } | null }>;
    expect(settled).toEqual([{ finish: expect.objectContaining({ status: 'committed' }), result: expect.objectContaining({ outcome: 'result' }) }]);
    // The conclusion projected the verified non-PR Result: done, still one Issue, still open.
    expect(repoIssues(fake.state, repo)).toHaveLength(1);
    expect(labels()).toEqual(['work', 'work:done']);
    expect(repoIssues(fake.state, repo)[0]!.state).toBe('open');

    setRunStatus(fake.state, worker.id, 'completed', 'success');
    const reconciled = await step('reconcile', {}) as { reconciled: Array<{ outcome: string }> };
    expect(reconciled.reconciled).toEqual([expect.objectContaining({ outcome: 'released' })]);

    const ledger = replayLedger((await store.read()).bytes!);
    expect(countOps(ledger, 'Result')).toBe(1);
    expect(countOps(ledger, 'Release')).toBe(1);
    expect(countOps(ledger, 'IssueLink')).toBe(1);
  }, 90_000);
});
