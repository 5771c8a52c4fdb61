/**
 * The reusable Action's `fairway` step script (action.yml, run unchanged under bash, as GitHub
 * runs it) when its command fails: `result` reaches GITHUB_OUTPUT first -- the command's own
 * `{"ok":false,"error":{...}}` receipt -- and only then does the step fail with the command's
 * exit code. `settle` fails (after writing its per-member `result`) when any member's finish was
 * neither committed nor replayed; it used to swallow every failure (`|| true`) and exit 0. The
 * queue is on the GitHub stand-in, whose `acme/queue` has no queue branch here, so every
 * command that reads the queue fails for real (`queue_uninitialized`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionRoutes } from '../fake-github/routes-actions.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { seedCommit } from '../fake-github/state.ts';
import { ROOT, runStep } from '../support/action-step.ts';
import { PRINCIPAL, REPOSITORY, TOKEN, WORKFLOW } from './harness.ts';

let fake: FakeGitHub;
let temp: string;
beforeAll(async () => {
  fake = await createFakeGitHub({ routes: [...actionRoutes] });
  seedCommit(fake.state.createRepo('acme', 'queue'), 'main', { 'README.md': 'no queue yet\n' });
  temp = mkdtempSync(join(tmpdir(), 'fairway-action-fail-'));
});
afterAll(async () => {
  expect(fake.violations).toEqual([]);
  await fake.close();
  rmSync(temp, { recursive: true, force: true });
});

/** A fresh RUNNER_TEMP and the step's environment (inputs empty unless `env` sets them). */
function job(step: string, env: Record<string, string> = {}): { runnerTemp: string; env: Record<string, string>; output: string } {
  const runnerTemp = mkdtempSync(join(temp, `${step}-`));
  return {
    runnerTemp,
    output: join(runnerTemp, 'github-output'),
    env: {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? temp, FAIRWAY_STEP: step, FAIRWAY_REPOSITORY: REPOSITORY, FAIRWAY_BRANCH: 'work-queue',
      GH_TOKEN: TOKEN, FAIRWAY_DISPATCH_TOKEN: '', FAIRWAY_OBSERVE_TOKEN: '', FAIRWAY_PRINCIPAL: PRINCIPAL, FAIRWAY_GITHUB_API_URL: fake.url,
      GITHUB_ACTION_PATH: ROOT, RUNNER_TEMP: runnerTemp, GITHUB_REPOSITORY: REPOSITORY, GITHUB_RUN_ID: '9007199254740993', GITHUB_RUN_ATTEMPT: '1',
      GITHUB_WORKFLOW_REF: `${REPOSITORY}/${WORKFLOW}@refs/heads/main`,
      IN_POOL: 'default', IN_MAX_CLAIMS: '1', IN_MAX_DISPATCHES: '1', IN_REF: '', IN_ASSIGNMENT: '', IN_OUTCOMES: '', IN_DISPATCH_ID: '', IN_HANDLE: '',
      IN_OUTCOME: '', IN_CLAIM_ID: '', IN_EVIDENCE: '', IN_DESCRIPTOR: '', IN_RECEIPTS: '',
      IN_ISSUES: 'false', FAIRWAY_ISSUES_TOKEN: '', FAIRWAY_ISSUES_WRITE_INTERVAL_MS: '0',
      ...env,
    },
  };
}

describe('action.yml step script failures', () => {
  it('action-settle: settle writes result for every member, then exits non-zero, when no member\'s finish was committed or replayed', async () => {
    const j = job('settle');
    // The verified assignment `activate --out` wrote, two members; both outcomes given.
    writeFileSync(join(j.runnerTemp, 'work-queue-assignment.json'), `${JSON.stringify({ dispatch_id: 'd_settle_1', claims: [{ handle: 'h1', claim_id: 'c_settle_1' }, { handle: 'h2', claim_id: 'c_settle_2' }] })}\n`);
    const outcomes = join(j.runnerTemp, 'outcomes');
    mkdirSync(outcomes);
    writeFileSync(join(outcomes, 'c_settle_1.outcome'), 'completed\n');
    writeFileSync(join(outcomes, 'c_settle_2.outcome'), 'cancelled\n');
    const r = await runStep({ ...j.env, IN_OUTCOMES: outcomes }, j.output, j.runnerTemp);
    expect(r.status, r.stderr + r.stdout).toBe(1);
    const result = JSON.parse(r.outputs.result!) as Array<{ finish: { ok: boolean; error: { code: string } }; result: unknown }>;
    expect(result).toEqual([
      { finish: expect.objectContaining({ ok: false, error: expect.objectContaining({ code: 'queue_uninitialized' }) }), result: null },
      { finish: expect.objectContaining({ ok: false, error: expect.objectContaining({ code: 'queue_uninitialized' }) }), result: null },
    ]);
    expect(r.stdout).toContain('::error::finish of member h1 (c_settle_1) was not committed');
  });

  it('action-settle: a completed member whose Result was refused (here principal_invalid) fails settle after result; unverified receipts only warn', async () => {
    // A stand-in CLI under GITHUB_ACTION_PATH: finish commits, result answers STUB_RESULT.
    const cli = mkdtempSync(join(temp, 'cli-'));
    mkdirSync(join(cli, 'bin'));
    writeFileSync(join(cli, 'bin', 'fairway.js'), [
      "const finish = process.argv.includes('finish');",
      "const code = process.env.STUB_RESULT;",
      "console.log(JSON.stringify(finish ? { ok: true, status: 'committed' } : { ok: false, error: { code, message: 'refused' } }));",
      "process.exit(finish ? 0 : code === 'option_invalid' ? 2 : 3);",
    ].join('\n'));
    const settle = async (code: string) => {
      const j = job('settle', { GITHUB_ACTION_PATH: cli, STUB_RESULT: code });
      writeFileSync(join(j.runnerTemp, 'work-queue-assignment.json'), `${JSON.stringify({ dispatch_id: 'd_settle_1', claims: [{ handle: 'h1', claim_id: 'c_settle_1' }] })}\n`);
      const outcomes = join(j.runnerTemp, 'outcomes');
      mkdirSync(outcomes);
      writeFileSync(join(outcomes, 'c_settle_1.outcome'), 'completed\n');
      writeFileSync(join(outcomes, 'c_settle_1.json'), '{}\n');
      return runStep({ ...j.env, IN_OUTCOMES: outcomes }, j.output, j.runnerTemp);
    };
    const refused = await settle('principal_invalid');
    expect(refused.status, refused.stderr + refused.stdout).toBe(1);
    expect(JSON.parse(refused.outputs.result!)).toEqual([{ finish: { ok: true, status: 'committed' }, result: { ok: false, error: { code: 'principal_invalid', message: 'refused' } } }]);
    expect(refused.stdout).toContain('::error::Result of member h1 (c_settle_1) was not published');
    const unverified = await settle('delivery_unverified');
    expect(unverified.status, unverified.stderr + unverified.stdout).toBe(0);
    expect(unverified.stdout).toContain('::warning::Result of member h1 (c_settle_1) not published: its receipts do not verify');
  });

  it('action-settle: settle without the verified assignment writes an assignment_missing result and exits 2', async () => {
    const j = job('settle');
    const r = await runStep({ ...j.env, IN_OUTCOMES: join(j.runnerTemp, 'none') }, j.output, j.runnerTemp);
    expect(r.status, r.stderr + r.stdout).toBe(2);
    expect(JSON.parse(r.outputs.result!)).toMatchObject({ ok: false, error: { code: 'assignment_missing' } });
  });

  it('action-step: a failing command writes its receipt to result first, then the step exits with the command\'s code', async () => {
    const cases: Array<[string, Record<string, string>, number, string]> = [
      ['finish', { IN_DISPATCH_ID: 'd_x', IN_HANDLE: 'h1', IN_OUTCOME: 'maybe' }, 2, 'option_invalid'],
      ['finish', { IN_DISPATCH_ID: 'd_x', IN_HANDLE: 'h1', IN_OUTCOME: 'completed' }, 3, 'queue_uninitialized'],
      ['activate', { IN_ASSIGNMENT: 'not json' }, 3, 'assignment_invalid'],
      ['dispatch', { GITHUB_WORKFLOW_REF: `${REPOSITORY}/.github/workflows/dispatcher.yml@refs/heads/main` }, 3, 'queue_uninitialized'],
      ['reconcile', {}, 3, 'queue_uninitialized'],
    ];
    for (const [step, env, code, error] of cases) {
      const j = job(step, env);
      const r = await runStep(j.env, j.output, j.runnerTemp);
      expect(r.status, `${step} ${JSON.stringify(env)}: ${r.stderr}${r.stdout}`).toBe(code);
      expect(r.outputs.result, `${step}: GITHUB_OUTPUT has no result`).toBeDefined();
      expect(JSON.parse(r.outputs.result!), step).toMatchObject({ ok: false, error: { code: error } });
      // A failed activation verified no assignment: it names no assignment file.
      expect(r.outputs['assignment-file']).toBeUndefined();
    }
  });
});
