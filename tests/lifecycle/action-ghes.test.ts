/**
 * The reusable Action on a GitHub Enterprise Server runner: GitHub sets GITHUB_ACTIONS,
 * GITHUB_API_URL and GITHUB_SERVER_URL there, and not GH_HOST. The step script of action.yml
 * runs under bash as GitHub runs it, against the stand-in in GHES mode (REST under `/api/v3`;
 * a request to api.github.com's paths is a violation) with `api-url: ''`, so that
 * FAIRWAY_GITHUB_API_URL is empty: the queue store, the launch and the backing-Issue
 * projection all go to the runner's own server, never to api.github.com.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayLedger } from '../../engine/replay/index.ts';
import { actionRoutes } from '../fake-github/routes-actions.ts';
import { issueRoutes, repoIssues } from '../fake-github/routes-issues.ts';
import { labelRoutes } from '../fake-github/routes-labels.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { ROOT, stepOutputs, stepScript } from '../support/action-step.ts';
import { actionQueue } from './action-queue.ts';
import { countOps, PRINCIPAL, REPOSITORY, TOKEN } from './harness.ts';

const run = promisify(execFile);

let fake: FakeGitHub;
let temp: string;
beforeAll(async () => {
  fake = await createFakeGitHub({ ghes: true, routes: [...labelRoutes, ...issueRoutes, ...actionRoutes] });
  temp = mkdtempSync(join(tmpdir(), 'fairway-action-ghes-'));
});
afterAll(async () => {
  expect(fake.violations).toEqual([]);
  await fake.close();
  rmSync(temp, { recursive: true, force: true });
});

describe('action.yml on a GitHub Enterprise Server runner', () => {
  it('dispatch with api-url \'\' (no GH_HOST): the store, the launch and the Issue projection use GITHUB_API_URL, the runner\'s server', async () => {
    const host = new URL(fake.url).host;
    const { repo, store } = await actionQueue(fake);
    const from = fake.requests.length;

    const output = join(temp, 'output-dispatch');
    writeFileSync(output, '');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? temp, FAIRWAY_STEP: 'dispatch', FAIRWAY_REPOSITORY: REPOSITORY, FAIRWAY_BRANCH: 'work-queue',
      GH_TOKEN: TOKEN, FAIRWAY_DISPATCH_TOKEN: '', FAIRWAY_OBSERVE_TOKEN: '', FAIRWAY_ISSUES_TOKEN: '', FAIRWAY_PRINCIPAL: PRINCIPAL,
      // The runner: GitHub's variables on GHES; the Action's api-url input given as ''.
      GITHUB_ACTIONS: 'true', GITHUB_API_URL: fake.url, GITHUB_SERVER_URL: `http://${host}`, FAIRWAY_GITHUB_API_URL: '',
      GITHUB_ACTION_PATH: ROOT, RUNNER_TEMP: temp, GITHUB_OUTPUT: output, GITHUB_REPOSITORY: REPOSITORY, GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '1',
      GITHUB_WORKFLOW_REF: `${REPOSITORY}/.github/workflows/dispatcher.yml@refs/heads/main`,
      IN_POOL: 'default', IN_MAX_CLAIMS: '1', IN_MAX_DISPATCHES: '1', IN_REF: '', IN_ASSIGNMENT: '', IN_OUTCOMES: '', IN_DISPATCH_ID: '', IN_HANDLE: '',
      IN_OUTCOME: '', IN_CLAIM_ID: '', IN_EVIDENCE: '', IN_DESCRIPTOR: '', IN_RECEIPTS: '', IN_ISSUES: 'true', FAIRWAY_ISSUES_WRITE_INTERVAL_MS: '0',
    };
    // The step's exit code is checked after its receipt, which names what failed.
    const exit = await run('bash', ['-c', stepScript()], { env: env as NodeJS.ProcessEnv, cwd: temp, maxBuffer: 1 << 24, encoding: 'utf8' }).then(() => 0, (e: { code?: number }) => e.code ?? -1);
    const outputs = stepOutputs(output);
    const result = JSON.parse(outputs.result!) as { launches?: Array<{ outcome: string }> };
    expect(result, outputs.result).toMatchObject({ launches: [expect.objectContaining({ outcome: 'bound' })] });
    expect(exit).toBe(0);
    expect(JSON.parse(outputs['issues-result']!), outputs['issues-result']).toMatchObject({ ok: true });

    // Everything reached the runner's server under /api/v3, with the Action's token.
    const requests = fake.requests.slice(from);
    expect(requests.map((r) => r.path).filter((p) => !p.startsWith('/api/'))).toEqual([]);
    expect(requests.map((r) => r.path)).toEqual(expect.arrayContaining([expect.stringMatching(/^\/api\/v3\/repos\/acme\/queue\/git\//), expect.stringMatching(/\/dispatches$/), expect.stringMatching(/^\/api\/v3\/repos\/acme\/queue\/issues/)]));
    expect([...new Set(requests.map((r) => r.authorization))]).toEqual([`token ${TOKEN}`]);
    const bytes = (await store.read()).bytes!;
    expect(countOps(replayLedger(bytes), 'IssueLink')).toBe(1);
    expect(repoIssues(fake.state, repo)).toHaveLength(1);
    // The backing Issue's identity names the runner's host (spec 7.16), not github.com.
    const text = new TextDecoder().decode(bytes);
    expect(text).toContain(`"host":"${host}"`);
    expect(text).not.toContain('"host":"github.com"');
  }, 90_000);
});
