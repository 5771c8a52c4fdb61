/**
 * Idempotency as operators use it (issue 10 §5), on real temporary Git
 * repositories through the real CLI entry point: administrator commands
 * repeated with the same --request-id return the committed outcome, exact
 * resubmissions return the existing record, and admission errors name node
 * keys and paths.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }).trim();
}

function tip(repo: string): string | null {
  try {
    return git(repo, 'rev-parse', '--verify', '-q', 'refs/heads/work-queue');
  } catch {
    return null;
  }
}

async function cli(repo: string, ...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await main(['--repo', repo, '--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

async function text(repo: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['--repo', repo, ...args], { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`) });
  return { code, out, err };
}

let repo: string;
let files: string;

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'fairway-idem-'));
  files = mkdtempSync(join(tmpdir(), 'fairway-idem-files-'));
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), 'project\n');
  git(repo, 'add', 'README.md');
  git(repo, 'commit', '-q', '-m', 'init');
});

function file(name: string, value: unknown): string {
  const path = join(files, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

/** Admits `n` independent nodes in graph `g` and returns their Work ids in node order. */
async function seed(n: number): Promise<string[]> {
  const nodes = Array.from({ length: n }, (_, i) => ({ node_key: `n${i}`, payload: { i } }));
  const r = await cli(repo, '--request-id', 'seed', 'submit-graph', '--file', file('seed.json', nodes), '--graph-id', 'g');
  expect(r.code).toBe(0);
  return r.json.work_ids;
}

/** Runs the same command twice; the second must replay the first's commit and write nothing. */
async function twice(...args: string[]): Promise<{ first: any; again: any }> {
  const first = await cli(repo, ...args);
  expect(first.code, JSON.stringify(first.json)).toBe(0);
  expect(first.json.status).toBe('committed');
  const before = tip(repo);
  const again = await cli(repo, ...args);
  expect(again.code, JSON.stringify(again.json)).toBe(0);
  expect(again.json.status).toBe('request_replayed');
  expect(again.json.commit_id).toBe(first.json.commit_id);
  expect(tip(repo)).toBe(before);
  return { first, again };
}

describe('administrator commands repeated with the same --request-id return the committed outcome (request_replayed)', () => {
  it('reprioritize repeated with the same --request-id replays although expected_priority moved (request_replayed)', async () => {
    const ids = await seed(2);
    await twice('--request-id', 'up-1', 'reprioritize', '--work-id', ids[0]!, '--priority', '1', '--reason', 'urgent');
    const inspect = await cli(repo, 'inspect', '--work-id', ids[0]!);
    expect(inspect.json.effective_priority ?? inspect.json.work?.effective_priority).toBe(1);
  });

  it('reprioritize with the same --request-id but another priority is request_id_conflict', async () => {
    const ids = await seed(1);
    expect((await cli(repo, '--request-id', 'up-2', 'reprioritize', '--work-id', ids[0]!, '--priority', '1', '--reason', 'urgent')).code).toBe(0);
    const before = tip(repo);
    const other = await cli(repo, '--request-id', 'up-2', 'reprioritize', '--work-id', ids[0]!, '--priority', '2', '--reason', 'urgent');
    expect(other.code).toBe(3);
    expect(other.json.error.code).toBe('request_id_conflict');
    expect(tip(repo)).toBe(before);
  });

  it('control repeated with the same --request-id replays (request_replayed)', async () => {
    await seed(1);
    await twice('--request-id', 'pause-1', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident');
  });

  it('control repeated with the same --request-id after a later control changed the value still replays (request_replayed)', async () => {
    await seed(1);
    const first = await cli(repo, '--request-id', 'pause-2', 'control', '--name', 'admission_paused', '--paused', 'true', '--reason', 'incident');
    expect(first.code).toBe(0);
    expect((await cli(repo, 'control', '--name', 'admission_paused', '--paused', 'false', '--reason', 'resolved')).code).toBe(0);
    const before = tip(repo);
    const again = await cli(repo, '--request-id', 'pause-2', 'control', '--name', 'admission_paused', '--paused', 'true', '--reason', 'incident');
    expect(again.json.status).toBe('request_replayed');
    expect(again.json.commit_id).toBe(first.json.commit_id);
    expect(tip(repo)).toBe(before);
  });

  it('cancel-work repeated with the same --request-id replays although the Work is now cancelled (request_replayed)', async () => {
    const ids = await seed(2);
    await twice('--request-id', 'cancel-1', 'cancel-work', '--work-id', `${ids[0]},${ids[1]}`, '--reason', 'operator_cancelled');
  });

  it('cancel-work with the same --request-id naming other Work is request_id_conflict', async () => {
    const ids = await seed(2);
    expect((await cli(repo, '--request-id', 'cancel-2', 'cancel-work', '--work-id', ids[0]!, '--reason', 'operator_cancelled')).code).toBe(0);
    const other = await cli(repo, '--request-id', 'cancel-2', 'cancel-work', '--work-id', ids[1]!, '--reason', 'operator_cancelled');
    expect(other.json.error.code).toBe('request_id_conflict');
  });

  it('cancel-claim repeated with the same --request-id replays although the Claim is now closed (request_replayed)', async () => {
    await seed(2);
    const grant = await cli(repo, '--request-id', 'grant-1', 'dispatch-next', '--max-claims', '1');
    expect(grant.code).toBe(0);
    const claim = grant.json.claims[0].claim_id as string;
    await twice('--request-id', 'cancel-claim-1', 'cancel-claim', '--claim-id', claim, '--reason', 'operator_cancelled');
  });

  it('policy repeated with the same --request-id replays (request_replayed)', async () => {
    const ids = await seed(1);
    expect((await cli(repo, 'cancel-work', '--work-id', ids[0]!, '--reason', 'drain')).code).toBe(0);
    await twice('--request-id', 'policy-1', 'policy', '--from-config', '--epoch', 'epoch-2');
  });
});

describe("the operator reference's --request-id examples, verbatim", () => {
  it('cancel-claim --claim-id CLAIM_A,CLAIM_B --reason operator_cancelled --request-id incident-cancel, run twice, cancels once', async () => {
    await seed(2);
    const grant = await cli(repo, '--request-id', 'grant-2', 'dispatch-next', '--max-claims', '2', '--max-dispatches', '2');
    expect(grant.json.granted_claims).toBe(2);
    const [CLAIM_A, CLAIM_B] = grant.json.claims.map((c: { claim_id: string }) => c.claim_id);
    const args = ['cancel-claim', '--claim-id', `${CLAIM_A},${CLAIM_B}`, '--reason', 'operator_cancelled', '--request-id', 'incident-cancel'];
    await twice(...args);
  });

  it('reprioritize --work-id WORK_A,WORK_B --priority 1 --reason operator_reprioritized --request-id incident-priority, run twice, changes priority once', async () => {
    const [WORK_A, WORK_B] = await seed(2);
    const args = ['reprioritize', '--work-id', `${WORK_A},${WORK_B}`, '--priority', '1', '--reason', 'operator_reprioritized', '--request-id', 'incident-priority'];
    const { first } = await twice(...args);
    expect(first.json.request_id).toBe('incident-priority');
  });
});
