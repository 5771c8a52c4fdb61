/**
 * What a new user's audit of the installed CLI found, run through the real entry point
 * (bin/fairway.js, the compiled CLI) on real Git repositories: `verify` reads the queue
 * branch itself; submitted JSON is refused, not quietly changed, when the ledger could not
 * keep it as written (spec 7.6 "Canonical encoding"); ordinary file mistakes are protocol
 * errors with stable codes, never `internal_error`; and none of them writes anything.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureRepo, git, queueTip } from '../support/fixture-repo.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'fairway-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `fairway ARGS --json` as users run it, in `cwd`. */
function fairway(cwd: string, ...args: string[]): { status: number | null; json: any; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/fairway.js'), ...args, '--json'], { cwd, encoding: 'utf8' });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = { unparsed: r.stdout };
  }
  return { status: r.status, json, stderr: r.stderr };
}

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

let repo: string;
beforeAll(() => {
  repo = fixtureRepo('fairway-audit-repo-');
  expect(fairway(repo, '--request-id', 'first', 'submit-work', '--file', file('first.json', '{"task":"hello"}'), '--node-key', 'hello').status).toBe(0);
});

describe('fairway verify reads the queue branch', () => {
  it('with no source option: the queue branch of the repository in the current directory, at its current version', () => {
    const r = fairway(repo, 'verify');
    expect(r.status).toBe(0);
    expect(r.json).toMatchObject({ ok: true, commits: 1, tip: expect.stringMatching(/^q_/), version: queueTip(repo) });
    expect(r.json.store).toContain(repo);
    expect(r.json.bytes).toBe(Buffer.byteLength(git(repo, 'show', 'work-queue:work-queue.jsonl')) + 1);
  });

  it('--dir names the repository; the same verdict as --ledger on the branch\'s file', () => {
    const viaDir = fairway(dir, '--dir', repo, 'verify');
    const ledger = file('branch.jsonl', `${git(repo, 'show', 'work-queue:work-queue.jsonl')}\n`);
    const viaFile = fairway(dir, 'verify', '--ledger', ledger);
    expect(viaDir.status).toBe(0);
    expect(viaFile.status).toBe(0);
    expect({ tip: viaDir.json.tip, commits: viaDir.json.commits, bytes: viaDir.json.bytes }).toEqual({ tip: viaFile.json.tip, commits: viaFile.json.commits, bytes: viaFile.json.bytes });
    expect(viaFile.json.store).toBeUndefined(); // a file has no store or version
  });

  it('a repository without a queue branch is queue_uninitialized (exit 3), and nothing is created', () => {
    const empty = fixtureRepo('fairway-audit-empty-');
    const r = fairway(empty, 'verify');
    expect(r.status).toBe(3);
    expect(r.json.error.code).toBe('queue_uninitialized');
    expect(queueTip(empty)).toBeNull();
  });

  it('a spoiled ledger on the branch is reported with its code and line, and the branch is left as it was', () => {
    const spoiled = fixtureRepo('fairway-audit-spoiled-');
    expect(fairway(spoiled, 'submit-work', '--file', file('s.json', '{"task":"one"}')).status).toBe(0);
    const text = git(spoiled, 'show', 'work-queue:work-queue.jsonl');
    // A second commit on the branch whose ledger repeats the record with a key duplicated.
    const bad = `${text}\n${text.replace('{"actor":', '{"actor":{"principal":"1"},"actor":')}\n`;
    const blob = execGit(spoiled, ['hash-object', '-w', '--stdin'], bad);
    const tree = execGit(spoiled, ['mktree'], `100644 blob ${blob}\twork-queue.jsonl\n`);
    const before = queueTip(spoiled)!;
    const commit = execGit(spoiled, ['commit-tree', tree, '-p', before, '-m', 'spoiled'], '');
    git(spoiled, 'update-ref', 'refs/heads/work-queue', commit, before);
    const r = fairway(spoiled, 'verify');
    expect(r.status).toBe(3);
    expect(r.json.error).toMatchObject({ code: 'duplicate_key', line: 2 });
    expect(queueTip(spoiled)).toBe(commit);
  });
});

function execGit(repo: string, args: string[], input: string): string {
  return spawnSync('git', args, { cwd: repo, input, encoding: 'utf8' }).stdout.trim();
}

describe('submitted JSON is refused, not changed, when the ledger could not keep it as written', () => {
  const refused: [string, string | Uint8Array, string][] = [
    ['exponent notation', '{"a":1e3}', 'noncanonical_number'],
    ['a fraction', '{"a":1.5}', 'noncanonical_number'],
    ['negative zero', '{"a":-0}', 'noncanonical_number'],
    ['an integer past 2^53', '{"a":99999999999999999999}', 'noncanonical_number'],
    ['a duplicated key', '{"a":1,"a":2}', 'duplicate_key'],
    ['a duplicated key deeper down', '{"a":{"b":1,"b":1}}', 'duplicate_key'],
    ['an unpaired surrogate', '{"a":"\\ud800"}', 'invalid_unicode'],
    ['a byte that is not UTF-8', Uint8Array.from([...Buffer.from('{"a":"x'), 0xff, ...Buffer.from('y"}')]), 'invalid_utf8'],
    ['not JSON at all', '{"a": ', 'invalid_json'],
  ];
  it.each(refused)('submit-work refuses %s as input_invalid, naming the reason; the branch is unchanged', (_, content, reason) => {
    const before = queueTip(repo);
    const r = fairway(repo, 'submit-work', '--file', file('payload.json', content));
    expect(r.status).toBe(3);
    expect(r.json.error).toMatchObject({ code: 'input_invalid', details: { reason } });
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    expect(queueTip(repo)).toBe(before);
  });

  it('submit-graph refuses a node whose node_key or priority is given twice (the last would have won)', () => {
    const before = queueTip(repo);
    const graph = '[{"node_key":"g1","node_key":"g2","payload":{},"priority":2,"priority":5}]';
    const r = fairway(repo, 'submit-graph', '--file', file('graph.json', graph));
    expect(r.status).toBe(3);
    expect(r.json.error).toMatchObject({ code: 'input_invalid', details: { reason: 'duplicate_key' } });
    expect(queueTip(repo)).toBe(before);
  });

  it('a payload that is canonical JSON with whitespace and any key order is accepted and kept value for value', () => {
    const r = fairway(repo, 'submit-work', '--file', file('spaced.json', '{ "b": [1, 2],\n  "a": "\\u00e9t\\u00e9" }'), '--node-key', 'spaced');
    expect(r.status).toBe(0);
    // The ledger holds the same value in canonical form (keys sorted, no whitespace, é as itself).
    const last = git(repo, 'show', 'work-queue:work-queue.jsonl').split('\n').at(-1)!;
    expect(last).toContain('"payload":{"a":"été","b":[1,2]}');
  });
});

describe('ordinary file mistakes are protocol errors with stable codes, never internal_error', () => {
  it('--ledger naming a directory is ledger_unreadable (exit 3)', () => {
    const r = fairway(dir, 'verify', '--ledger', dir);
    expect(r.status).toBe(3);
    expect(r.json.error.code).toBe('ledger_unreadable');
    const s = fairway(dir, '--ledger', dir, 'stats');
    expect(s.status).toBe(3);
    expect(s.json.error.code).toBe('ledger_unreadable');
  });

  it('--ledger naming an endless device stops at the parser limit (resource_limit, exit 3), not at the machine\'s memory', () => {
    const r = fairway(dir, '--ledger', '/dev/zero', 'verify');
    expect(r.status).toBe(3);
    expect(r.json.error).toMatchObject({ code: 'resource_limit', details: { limit: 'ledger_bytes', max: 83_886_080 } });
  });

  it('verify --ledger FILE with --dir is source_conflict (exit 2): it never verifies the file and ignores the branch named', () => {
    const ledger = file('exported.jsonl', git(repo, 'show', 'work-queue:work-queue.jsonl') + '\n');
    expect(fairway(dir, '--ledger', ledger, 'verify').status).toBe(0);
    const r = fairway(dir, '--ledger', ledger, '--dir', repo, 'verify');
    expect(r.status).toBe(2);
    expect(r.json.error.code).toBe('source_conflict');
  });

  it('demo --out into a missing directory is output_unwritable (exit 3)', () => {
    const r = fairway(dir, 'demo', '--out', join(dir, 'no-such-dir', 'demo.jsonl'));
    expect(r.status).toBe(3);
    expect(r.json.error.code).toBe('output_unwritable');
  });

  it('replay --output onto a directory is output_unwritable (exit 3)', () => {
    mkdirSync(join(dir, 'a-directory'), { recursive: true });
    const r = fairway(repo, 'replay', '--output', join(dir, 'a-directory'));
    expect(r.status).toBe(3);
    expect(r.json.error.code).toBe('output_unwritable');
  });
});

describe('usage errors', () => {
  it('a --principal that is not a positive decimal id is principal_invalid (exit 2) for a read command too', () => {
    const r = fairway(repo, '--principal', 'abc', 'stats');
    expect(r.status).toBe(2);
    expect(r.json.error.code).toBe('principal_invalid');
  });

  it('point at the help of the command that was run, and print no internal mark', () => {
    const human = spawnSync(process.execPath, [join(ROOT, 'bin/fairway.js'), 'verify', '--threads', '99'], { cwd: repo, encoding: 'utf8' });
    expect(human.status).toBe(2);
    expect(human.stderr).toContain('(see fairway verify --help)');
    const unknown = spawnSync(process.execPath, [join(ROOT, 'bin/fairway.js'), 'frobnicate'], { cwd: repo, encoding: 'utf8' });
    expect(unknown.stderr).toContain('(see fairway --help)');
    // id_prefix_short is raised below the command with a usage mark; the JSON error carries its details, not the mark.
    const workId = (fairway(repo, 'state').json.rows as { kind: string; work_id?: string }[]).find((r) => r.kind === 'work')!.work_id!;
    const short = fairway(repo, 'inspect', '--work-id', workId.slice(0, 5));
    expect(short.status).toBe(2);
    expect(short.json.error).toMatchObject({ code: 'id_prefix_short', details: { prefix: workId.slice(0, 5) } });
    expect(short.json.error.details).not.toHaveProperty('usage');
  });
});
