/**
 * Issue 15 §1: the CLI follows `gh`'s conventions. `-R/--repo [HOST/]OWNER/REPO` selects the
 * GitHub store (`--github` its alias), `--dir` the local repository (`--repo PATH` still works,
 * with a deprecation note); tokens come from GH_TOKEN, GITHUB_TOKEN, then `gh auth token` (a
 * fake `gh` on PATH); GH_HOST / GH_ENTERPRISE_TOKEN for Enterprise hosts; errors once with a
 * stable code and exit 2 for every usage error; help with global options and an example;
 * `--file -`; unique id prefixes; shell completion; no token for a command that calls no API.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/commands/index.ts';
import { GRAPH_FORMAT_HELP } from '../../cli/commands/submit.ts';
import { EXAMPLES } from '../../cli/examples.ts';
import { apiUrlFor, parseRepoSpec } from '../../cli/globals.ts';
import { resolvePrefix } from '../../cli/ids.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { FAKE_USER, seedCommit } from '../fake-github/state.ts';
import { runCaptured, type CapturedRun } from '../support/cli.ts';
import { fixtureRepo, git } from '../support/fixture-repo.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'fairway.js');
const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

function fairway(...args: string[]): Promise<CapturedRun> {
  return runCaptured(args);
}

const TOKEN_VARS = ['GH_TOKEN', 'GITHUB_TOKEN', 'GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN', 'GH_HOST', 'FAIRWAY_DISPATCH_TOKEN', 'FAIRWAY_GITHUB_API_URL', 'FAIRWAY_PRINCIPAL', 'FAIRWAY_GITHUB_STORE_API'];
let saved: NodeJS.ProcessEnv;
let files: string;

beforeEach(() => {
  saved = { ...process.env };
  for (const v of TOKEN_VARS) delete process.env[v];
  files = mkdtempSync(join(tmpdir(), 'fairway-gh-'));
});

afterEach(() => {
  process.env = saved;
});

function file(name: string, value: unknown): string {
  const path = join(files, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

/** A directory holding a fake `gh` that records its arguments and prints `token` (exit 1 when null). */
function fakeGh(token: string | null): { dir: string; calls: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'fairway-fake-gh-'));
  const log = join(dir, 'calls.log');
  writeFileSync(join(dir, 'gh'), token === null
    ? `#!/bin/sh\necho "$*" >> "${log}"\necho "You are not logged into any GitHub hosts. To log in, run: gh auth login" >&2\nexit 1\n`
    : `#!/bin/sh\necho "$*" >> "${log}"\necho "${token}"\n`);
  chmodSync(join(dir, 'gh'), 0o755);
  return { dir, calls: () => { try { return readFileSync(log, 'utf8').trim().split('\n'); } catch { return []; } } };
}

describe('store selection: -R/--repo OWNER/REPO is GitHub, --dir is local', () => {
  it('--dir PATH is the local repository; --repo PATH still works with one deprecation note on stderr', async () => {
    const repo = fixtureRepo('fairway-dir-');
    const payload = file('task.json', { plan: 'p' });
    const sub = await fairway('--dir', repo, '--json', 'submit-work', '--file', payload, '--node-key', 'a');
    expect(sub.code).toBe(0);
    expect(sub.err).toBe('');
    const old = await fairway('--repo', repo, '--json', 'replay');
    expect(old.code).toBe(0);
    expect(old.json.summary.works.total).toBe(1);
    expect(old.err.match(/deprecated/g)).toHaveLength(1);
    expect(old.err).toContain(`--dir ${repo}`);
    const both = await fairway('--dir', repo, '--repo', repo, '--json', 'replay');
    expect(both.code).toBe(2);
    expect(both.json.error.code).toBe('store_options_invalid');
  });

  it('parses [HOST/]OWNER/REPO and GitHub URLs like gh; anything else is repo_invalid (exit 2)', async () => {
    expect(parseRepoSpec('octo-org/app')).toEqual({ owner: 'octo-org', name: 'app' });
    expect(parseRepoSpec('GHE.example.com/octo-org/app')).toEqual({ host: 'ghe.example.com', owner: 'octo-org', name: 'app' });
    expect(parseRepoSpec('https://github.com/octo-org/app.git')).toEqual({ host: 'github.com', owner: 'octo-org', name: 'app' });
    expect(parseRepoSpec('a b')).toBeNull();
    expect(parseRepoSpec('a/b/c/d')).toBeNull();
    expect(apiUrlFor({ host: 'github.com' }, {})).toBeUndefined();
    expect(apiUrlFor({ host: 'ghe.example.com' }, {})).toBe('https://ghe.example.com/api/v3');
    const bad = await fairway('-R', 'not a repo', '--json', 'state');
    expect(bad.code).toBe(2);
    expect(bad.json.error.code).toBe('repo_invalid');
    const conflict = await fairway('-R', 'a/b', '--github', 'c/d', '--json', 'state');
    expect(conflict.json.error.code).toBe('store_options_invalid');
  });

  it('without GH_TOKEN, GITHUB_TOKEN or gh, -R names all three token sources (github_token_missing, exit 2)', async () => {
    process.env.PATH = mkdtempSync(join(tmpdir(), 'fairway-empty-path-'));
    const r = await fairway('-R', 'octo-org/app', '--json', 'state');
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('github_token_missing');
    expect(r.json.error.message).toMatch(/GH_TOKEN.*GITHUB_TOKEN.*gh auth login/);
  });

  it('a logged-out gh is asked (auth token --hostname github.com) and the error still names all three', async () => {
    const gh = fakeGh(null);
    process.env.PATH = `${gh.dir}:${saved.PATH}`;
    const r = await fairway('--github', 'octo-org/app', '--json', 'stats');
    expect(r.json.error.code).toBe('github_token_missing');
    expect(gh.calls()).toEqual(['auth token --hostname github.com']);
  });
});

describe('tokens against the fake GitHub', () => {
  let fake: FakeGitHub;
  beforeAll(async () => {
    fake = await createFakeGitHub();
  });
  afterAll(async () => {
    await fake?.close();
  });

  function newRepo(name: string) {
    const repo = fake.state.createRepo('fairway-org', name);
    seedCommit(repo, 'main', { 'README.md': '# x\n', [WORKER_WORKFLOW]: workerWorkflowYaml() });
    return repo;
  }

  const bearer = (from: number) => [...new Set(fake.requests.slice(from).map((r) => r.authorization))];

  it('`gh auth token` is the fallback after GH_TOKEN and GITHUB_TOKEN; GH_TOKEN wins when set', async () => {
    const repo = newRepo('gh-token');
    const gh = fakeGh('gho_from_gh_cli');
    Object.assign(process.env, { PATH: `${gh.dir}:${saved.PATH}`, FAIRWAY_GITHUB_API_URL: fake.url, FAIRWAY_PRINCIPAL: String(FAKE_USER.id) });
    const payload = file('task.json', { plan: 'p' });
    let from = fake.requests.length;
    const sub = await fairway('-R', `${repo.owner}/${repo.name}`, '--json', 'submit-work', '--file', payload, '--node-key', 'a');
    expect(sub.code, sub.out + sub.err).toBe(0);
    expect(bearer(from)).toEqual(['token gho_from_gh_cli']);
    expect(gh.calls()).toEqual(['auth token --hostname github.com']);

    process.env.GITHUB_TOKEN = 'ghp_from_github_token';
    from = fake.requests.length;
    expect((await fairway('-R', `${repo.owner}/${repo.name}`, '--json', 'state')).code).toBe(0);
    expect(bearer(from)).toEqual(['token ghp_from_github_token']);
    process.env.GH_TOKEN = 'ghp_from_gh_token';
    from = fake.requests.length;
    const st = await fairway('-R', `${repo.owner}/${repo.name}`, '--json', 'state');
    expect(st.json.rows.filter((r: { kind: string }) => r.kind === 'work')).toHaveLength(1);
    expect(bearer(from)).toEqual(['token ghp_from_gh_token']);
    expect(gh.calls()).toHaveLength(1);
  });

  it('an Enterprise host (-R HOST/OWNER/REPO or GH_HOST) reads GH_ENTERPRISE_TOKEN, not GH_TOKEN', async () => {
    const repo = newRepo('enterprise');
    process.env.PATH = mkdtempSync(join(tmpdir(), 'fairway-empty-path-'));
    Object.assign(process.env, { GH_TOKEN: 'ghp_dotcom_only' });
    const missing = await fairway('-R', `ghe.example.com/${repo.owner}/${repo.name}`, '--json', 'state');
    expect(missing.json.error.code).toBe('github_token_missing');
    expect(missing.json.error.message).toMatch(/ghe\.example\.com.*GH_ENTERPRISE_TOKEN.*GITHUB_ENTERPRISE_TOKEN.*gh auth login --hostname ghe\.example\.com/);

    Object.assign(process.env, { GH_HOST: 'ghe.example.com', GH_ENTERPRISE_TOKEN: 'ghe_token', FAIRWAY_GITHUB_API_URL: fake.url, FAIRWAY_PRINCIPAL: String(FAKE_USER.id) });
    const from = fake.requests.length;
    const sub = await fairway('-R', `${repo.owner}/${repo.name}`, '--json', 'submit-work', '--file', file('t.json', { plan: 'p' }), '--node-key', 'e');
    expect(sub.code, sub.out + sub.err).toBe(0);
    expect(bearer(from)).toEqual(['token ghe_token']);
  });
});

describe('usage errors, help and completion', () => {
  it('a usage error is printed once, with its stable code, and exits 2 (commander parsers, not hand checks)', async () => {
    const unknown = await fairway('state', '--bogus');
    expect(unknown.code).toBe(2);
    expect(unknown.out).toBe('');
    expect(unknown.err.match(/^fairway: /gm)).toHaveLength(1);
    expect(unknown.err).toMatch(/^fairway: unknown_option: unknown option '--bogus'/);
    for (const [args, code] of [
      [['submit-work', '--file', 'x.json', '--priority', '9'], 'priority_invalid'],
      [['submit-work', '--file', 'x.json', '--priority', '2.5'], 'priority_invalid'],
      [['reprioritize', '--work-id', 'w', '--priority', '0', '--reason', 'r'], 'priority_invalid'],
      [['finish', '--dispatch-id', 'd', '--handle', 'h1', '--outcome', 'maybe'], 'option_invalid'],
      [['control', '--name', 'nope', '--reason', 'r'], 'option_invalid'],
      [['reconcile', '--all', '--max-polls', '0'], 'option_invalid'],
      [['completion', 'tcsh'], 'option_invalid'],
      [['frobnicate'], 'usage_error'],
    ] as const) {
      const r = await fairway('--json', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.json.error.code, args.join(' ')).toBe(code);
      expect(r.err, args.join(' ')).toBe('');
      const human = await fairway(...args);
      expect(human.err.match(/^fairway: /gm), args.join(' ')).toHaveLength(1);
    }
  });

  it('every command\'s --help shows the global options, one worked example and the exit codes', async () => {
    const names = COMMANDS.flatMap((e) => e.commands.map((c) => c.name));
    for (const name of names) expect(EXAMPLES[name], name).toMatch(new RegExp(`^(?:echo .*\\| )?fairway .*${name}`));
    // Ids in the examples are ids users have: a Work id is SHA-256 hex (a prefix of 8+ names it), with no prefix of its own.
    for (const [name, example] of Object.entries(EXAMPLES)) {
      for (const m of example.matchAll(/--work-id (\S+)/g)) for (const id of m[1]!.split(',')) expect(id, name).toMatch(/^[0-9a-f]{8,64}$/);
    }
    for (const name of ['state', 'submit-work', 'reconcile', 'completion']) {
      const r = await fairway(name, '--help');
      expect(r.code).toBe(0);
      expect(r.out).toContain('Global Options:');
      expect(r.out).toMatch(/-R, --repo <\[HOST\/\]OWNER\/REPO>/);
      expect(r.out).toContain('--dir <path>');
      expect(r.out).toContain(`Example:\n  ${EXAMPLES[name]}`);
      expect(r.out).toContain('Exit codes: 0 success, 2 usage error');
    }
  });

  it('completion bash completes commands and each command\'s options (run in a real bash)', async () => {
    const r = await fairway('completion', 'bash');
    expect(r.code).toBe(0);
    const script = file('fairway.bash', r.out);
    const complete = (words: string[]) => execFileSync('bash', ['-c', `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _fairway; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' }).trim().split('\n');
    expect(complete(['fairway', 'st'])).toEqual(['stats', 'state']);
    expect(complete(['fairway', '-R', 'o/r', 'state', '--li'])).toEqual(['--limit']);
    expect(complete(['fairway', 'submit-graph', '--gr'])).toEqual(['--graph-id']);
    expect(complete(['fairway', 'replay', '--fo'])).toEqual(['--format']);
  });

  it('completion zsh and fish name every command and pass their shell\'s syntax check when installed', async () => {
    const names = COMMANDS.flatMap((e) => e.commands.flatMap((c) => [c.name, ...c.aliases]));
    for (const shell of ['zsh', 'fish'] as const) {
      const r = await fairway('completion', shell);
      expect(r.code).toBe(0);
      for (const n of names) expect(r.out, `${shell} ${n}`).toMatch(new RegExp(`(?:'|-a )${n}[: ]`));
      const check = spawnSync(shell, ['-n', file(`fairway.${shell}`, r.out)], { encoding: 'utf8' });
      if (check.error === undefined) expect(check.status, check.stderr).toBe(0);
    }
  });
});

describe('inputs, ids and tokens on a local repository', () => {
  it('--file - and --ledger - read standard input (the real bin)', () => {
    const repo = fixtureRepo('fairway-stdin-');
    const sub = spawnSync(process.execPath, [BIN, '--dir', repo, '--json', 'submit-work', '--file', '-', '--node-key', 'from-stdin'], { input: '{"plan":"piped"}', encoding: 'utf8' });
    expect(sub.status, sub.stderr).toBe(0);
    expect(JSON.parse(sub.stdout).work_ids).toHaveLength(1);
    const ledger = execFileSync('git', ['-C', repo, 'show', 'work-queue:work-queue.jsonl']);
    const v = spawnSync(process.execPath, [BIN, '--ledger', '-', '--json', 'verify'], { input: ledger, encoding: 'utf8' });
    expect(v.status, v.stderr).toBe(0);
    expect(JSON.parse(v.stdout).commits).toBe(1);
    const graph = spawnSync(process.execPath, [BIN, '--dir', repo, '--json', 'submit-graph', '--file', '-'], { input: 'not json', encoding: 'utf8' });
    expect(graph.status).toBe(3);
    expect(JSON.parse(graph.stdout).error.code).toBe('input_invalid');
  });

  it('the submit-graph node format in --help and README is a graph that admits (Work, Issue and PR dependencies)', async () => {
    const help = await fairway('submit-graph', '--help');
    expect(help.out).toContain(GRAPH_FORMAT_HELP.trim().split('\n')[0]);
    const example = /Example graph\.json[^\n]*\n([\s\S]*?\n {2}\])/.exec(GRAPH_FORMAT_HELP)![1]!;
    const nodes = JSON.parse(example);
    expect(nodes.flatMap((n: { depends_on?: Array<{ kind: string }> }) => (n.depends_on ?? []).map((d) => d.kind)).sort()).toEqual(['issue', 'pull_request', 'work', 'work']);
    // The README shows the same graph.
    const readme = /```json\n(\[[\s\S]*?\])\n```/.exec(README.slice(README.indexOf('submit-graph node format')))![1]!;
    expect(JSON.parse(readme)).toEqual(nodes);
    const repo = fixtureRepo('fairway-graph-');
    // The queue repository (from origin) is the pool's allowed repository of the example's gates.
    git(repo, 'remote', 'add', 'origin', 'https://github.com/octo-org/app.git');
    const sub = await fairway('--dir', repo, '--json', 'submit-graph', '--file', file('graph.json', example), '--graph-id', 'release-42');
    expect(sub.code, sub.out).toBe(0);
    expect(sub.json.work_ids).toHaveLength(3);
    const state = await fairway('--dir', repo, '--json', 'state');
    const rows = state.json.rows.filter((r: { kind: string }) => r.kind === 'work');
    expect(Object.fromEntries(rows.map((r: { node_key: string; readiness: string }) => [r.node_key, r.readiness]))).toEqual({ design: 'ready', implement: 'waiting', release: 'waiting' });
  });

  it('unique id prefixes of 8+ characters work for --work-id, --claim-id, --dispatch-id and --request-id; an ambiguous one lists the candidates', async () => {
    const repo = fixtureRepo('fairway-prefix-');
    const payload = file('task.json', { plan: 'p' });
    for (const k of ['a', 'b']) expect((await fairway('--dir', repo, '--json', '--request-id', `incident-7-${k}`, 'submit-work', '--file', payload, '--node-key', k)).code).toBe(0);
    const grant = await fairway('--dir', repo, '--json', 'dispatch-next', '--max-claims', '1', '--max-dispatches', '1');
    expect(grant.code, grant.out).toBe(0);
    const claimId: string = grant.json.claims[0].claim_id;
    const workId: string = grant.json.claims[0].work_id;
    const dispatchId: string = grant.json.claims[0].dispatch_id;

    const work = await fairway('--dir', repo, '--json', 'inspect', '--work-id', workId.slice(0, 10));
    expect(work.json.work_id).toBe(workId);
    const claim = await fairway('--dir', repo, '--json', 'inspect', '--claim-id', claimId.slice(0, 12));
    expect(claim.json.claim_id).toBe(claimId);
    const evidence = await fairway('--dir', repo, '--json', 'evidence', '--dispatch-id', dispatchId.slice(0, 12));
    expect(evidence.json.groups[0].dispatch_id).toBe(dispatchId);
    const trace = await fairway('--dir', repo, '--json', '--request-id', 'incident-7-b', 'trace');
    expect(trace.code).toBe(0);
    // Too short to be a prefix: a usage error saying so (it was unknown_work, which sent users looking for a missing Work).
    const short = await fairway('--dir', repo, '--json', 'inspect', '--work-id', workId.slice(0, 7));
    expect(short.code).toBe(2);
    expect(short.json.error).toMatchObject({ code: 'id_prefix_short', details: { min_length: 8, matches: 1 } });
    expect(short.json.error.message).toContain('at least 8 characters');
    // A value that starts no id is the command's own answer.
    expect((await fairway('--dir', repo, '--json', 'inspect', '--work-id', 'zzzzzzz')).json.error.code).toBe('unknown_work');
    const ambiguous = await fairway('--dir', repo, '--json', '--request-id', 'incident-7', 'trace');
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.json.error.code).toBe('id_ambiguous');
    expect(ambiguous.json.error.details.candidates).toEqual(['incident-7-a', 'incident-7-b']);
    const human = await fairway('--dir', repo, '--request-id', 'incident-7', 'trace');
    expect(human.err).toContain('incident-7-a, incident-7-b');
    // A mutation takes a prefix too.
    const other = (await fairway('--dir', repo, '--json', 'state')).json.rows.find((r: { kind: string; work_id: string }) => r.kind === 'work' && r.work_id !== workId).work_id as string;
    const cancel = await fairway('--dir', repo, '--json', 'cancel-work', '--work-id', other.slice(0, 9), '--reason', 'operator_cancelled');
    expect(cancel.code, cancel.out).toBe(0);
    expect((await fairway('--dir', repo, '--json', 'inspect', '--work-id', other)).json.state).toBe('cancelled');
    expect(() => resolvePrefix('work', 'abcdefgh', ['abcdefgh1', 'abcdefgh2', 'x'])).toThrow(expect.objectContaining({ code: 'id_ambiguous', details: expect.objectContaining({ candidates: ['abcdefgh1', 'abcdefgh2'] }) }));
    // Not an identity at all is the flag's own error (exit 2), for every id flag alike.
    const control = await fairway('--dir', repo, '--json', 'inspect', '--claim-id', `${claimId.slice(0, 10)}\u0007`);
    expect([control.code, control.json.error.code]).toEqual([2, 'option_invalid']);
    expect(control.json.error.message).toMatch(/^--claim-id must be 1\.\.256 UTF-8 bytes/);
  });

  it('reconcile --cancel-reserved (and observe without gates) make no GitHub call and ask for no token', async () => {
    process.env.PATH = `${mkdtempSync(join(tmpdir(), 'fairway-empty-path-'))}:${saved.PATH}`;
    const repo = fixtureRepo('fairway-cancel-reserved-');
    expect((await fairway('--dir', repo, '--json', 'submit-work', '--file', file('t.json', { plan: 'p' }), '--node-key', 'a')).code).toBe(0);
    const grant = await fairway('--dir', repo, '--json', 'dispatch-next');
    const dispatchId: string = grant.json.claims[0].dispatch_id;
    const r = await fairway('--dir', repo, '--json', 'reconcile', '--dispatch-id', dispatchId, '--cancel-reserved');
    expect(r.code, r.out).toBe(0);
    expect(r.json.reconciled[0]).toMatchObject({ dispatch_id: dispatchId });
    const g = await fairway('--dir', repo, '--json', 'evidence', '--dispatch-id', dispatchId);
    expect(g.json.groups[0].release_commit).toMatch(/^q_/);
    // Without --cancel-reserved a reserved group is only reported, still without a token.
    expect((await fairway('--dir', repo, '--json', 'reconcile', '--all')).code).toBe(0);
    // observe of a pool with no Issue/PR gate reads nothing from GitHub.
    const observed = await fairway('--dir', repo, '--json', 'observe');
    expect(observed.code, observed.out).toBe(0);
    expect(observed.json).toMatchObject({ ok: true, candidates: 0, reads: 0 });
  });
});
