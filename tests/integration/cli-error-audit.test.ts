/**
 * A demanding user's audit of the CLI's errors, run through the real entry point
 * (bin/fairway.js, the compiled CLI) on real Git repositories: every usage error points at the
 * help of the command that was run, --json answers with one JSON object, and a refused run
 * leaves the queue branch as it was.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/commands/index.ts';
import { createContext } from '../../cli/context.ts';
import { EXIT_CODES_HELP } from '../../cli/output.ts';
import { issueBench } from '../issues/bench.ts';
import { runCaptured } from '../support/cli.ts';
import { fixtureRepo } from '../support/fixture-repo.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** An empty gh configuration: `gh auth token` finds no login either. */
const GH_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'fairway-error-audit-gh-'));

/** `fairway ARGS` as users run it, in `cwd`, with no GitHub token in the environment. */
function fairway(cwd: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, GH_TOKEN: '', GITHUB_TOKEN: '', FAIRWAY_ISSUES_TOKEN: '', GH_CONFIG_DIR };
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/fairway.js'), ...args], { cwd, encoding: 'utf8', env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let repo: string;
beforeAll(() => {
  repo = fixtureRepo('fairway-error-audit-');
});

describe('usage errors of a subcommand point at its own help', () => {
  it.each([
    ['a missing mandatory option', 'issues resolve', 'option_missing', 'issues resolve'],
    ['an option conflict found by the action', 'issues resolve --target issue:x --issue 1 --not-created', 'option_invalid', 'issues resolve'],
    ['an unknown option', 'issues sync --bogus', 'unknown_option', 'issues sync'],
  ])('%s: fairway %s', (_what, args, code, path) => {
    const r = fairway(repo, ...args.split(' '));
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^fairway: ${code}: .*\\n\\(see fairway ${path} --help\\)\\n$`));
  });
});

describe('--json with no command to run', () => {
  it('fairway issues --json (no subcommand): one JSON usage error, command_missing (exit 2), as fairway --json alone; no help text', () => {
    const r = fairway(repo, 'issues', '--json');
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ ok: false, error: { code: 'command_missing', message: 'no subcommand given; fairway issues --help lists them' } });
    expect(r.stderr).toBe('');
    // Without --json it stays what bare `fairway` does: the command's help.
    const human = fairway(repo, 'issues');
    expect(human.stderr).toContain('Usage: fairway issues [options] [command]');
  });

  it('fairway help --json is the help fairway --json help prints, not an unknown command named --json', () => {
    const r = fairway(repo, 'help', '--json');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(fairway(repo, '--json', 'help').stdout);
    expect(r.stdout).toMatch(/^Usage: fairway \[options\] \[command\]/);
  });
});

describe('issues resolve asks for a GitHub token only when it reads GitHub', () => {
  it('--not-created (a journal write alone) releases a pending intent with no token; an unknown target is named before any token', async () => {
    const bench = await issueBench([{ node_key: 'n1', payload: { title: 'One task' } }]);
    try {
      // A crash after the intent, before sending: the Issue creation is pending.
      await expect(bench.projector().sync({ afterIntents: () => { throw new Error('crash'); } })).rejects.toThrow('crash');
      const workId = (await bench.projection()).works().next().value!.workId;
      const journal = bench.projector().journal;
      expect((await journal.load()).state.entries.get(`issue:${workId}`)?.phase).toBe('pending');

      const unknown = fairway(bench.dir, 'issues', 'resolve', '--target', 'issue:nope', '--not-created', '--json');
      expect([unknown.status, JSON.parse(unknown.stdout).error.code]).toEqual([2, 'issues_target_unknown']);

      const r = fairway(bench.dir, 'issues', 'resolve', '--target', `issue:${workId}`, '--not-created', '--json');
      expect(r.status, r.stdout).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, key: `issue:${workId}`, resolution: 'not_created' });
      expect((await journal.load()).state.entries.get(`issue:${workId}`)?.phase).not.toBe('pending');
    } finally {
      await bench.close();
    }
  });
});

describe('--format jsonl: an error is one record on one line, as every line of the format is', () => {
  it.each([
    ['a protocol error (no queue on the branch)', ['--branch', 'no-such-queue', 'state', '--format', 'jsonl'], 3, 'queue_uninitialized'],
    ['a bad option value', ['stats', '--format', 'jsonl', '--bogus'], 2, 'unknown_option'],
    ['a usage error found by the action', ['inspect', '--format=jsonl'], 2, 'option_invalid'],
  ])('%s', (_what, args, status, code) => {
    const r = fairway(repo, ...args);
    expect(r.status).toBe(status);
    expect(r.stdout.endsWith('\n')).toBe(true);
    const lines = r.stdout.slice(0, -1).split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ ok: false, error: { code } });
    expect(r.stderr).toBe('');
  });
});

describe('help text teaches the current options', () => {
  const commands = [...COMMANDS.flatMap((e) => e.commands.map((c) => c.name)), 'issues sync', 'issues resolve'];

  it.each(commands)('fairway %s --help ends with the exit codes and shows no --repo PATH (deprecated: a local repository is --dir PATH)', async (command) => {
    const r = await runCaptured([...command.split(' '), '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Usage: fairway ${command}`);
    expect(r.out.trimEnd().endsWith(EXIT_CODES_HELP)).toBe(true);
    expect(r.out.split('\n').filter((line) => /(?:--repo|-R) (?:\.{1,2}(?:\/|\s|$)|\/|~)/.test(line))).toEqual([]);
  });
});

/** The help's option entries (flags and description, continuation lines joined), by their flags. */
function optionEntries(help: string): Map<string, string> {
  const entries = new Map<string, string>();
  let current: [string, string] | null = null;
  for (const line of help.split('\n')) {
    const start = /^ {2}(-\S.*?)(?: {2,}(.*))?$/.exec(line);
    if (start !== null) {
      current = [start[1]!.trim(), start[2] ?? ''];
      entries.set(current[0], current[1]);
    } else if (current !== null && /^ {10,}\S/.test(line)) {
      current[1] = `${current[1]} ${line.trim()}`;
      entries.set(current[0], current[1]);
    } else current = null;
  }
  return entries;
}

describe('--help names the options a run cannot do without', () => {
  it('every mandatory option of every command is marked (required) in its --help; an optional one is not', async () => {
    const program = new Command('fairway');
    const ctx = createContext({ out: () => undefined, err: () => undefined }, program, () => undefined);
    for (const entry of COMMANDS) (await entry.load())(program, ctx);
    const all = program.commands.flatMap((c) => [c, ...c.commands]);
    const path = (c: Command) => (c.parent === program ? c.name() : `${c.parent!.name()} ${c.name()}`);
    const unmarked: string[] = [];
    let mandatory = 0;
    for (const command of all) {
      const r = await runCaptured([...path(command).split(' '), '--help']);
      const entries = optionEntries(r.out);
      for (const option of command.options) {
        const description = entries.get(option.flags);
        expect(description, `${path(command)} ${option.flags}`).toBeDefined();
        if (option.mandatory) mandatory++;
        if (option.mandatory !== description!.endsWith('(required)')) unmarked.push(`${path(command)} ${option.flags}: ${description}`);
      }
    }
    expect(mandatory).toBeGreaterThan(10);
    expect(unmarked).toEqual([]);
  });
});

describe('a read with nothing in scope says so (not an empty screen)', () => {
  it('evidence --work-id and reconcile --work-id of a Work never granted, reconcile --all of a queue with nothing to reconcile', () => {
    const queue = fixtureRepo('fairway-error-audit-queue-');
    const payload = join(mkdtempSync(join(tmpdir(), 'fairway-error-audit-files-')), 'p.json');
    writeFileSync(payload, '{"task":"hello"}');
    const submitted = fairway(queue, 'submit-work', '--file', payload, '--json');
    expect(submitted.status, submitted.stdout).toBe(0);
    const workId = JSON.parse(submitted.stdout).work_ids[0] as string;

    const evidence = fairway(queue, 'evidence', '--work-id', workId);
    expect([evidence.status, evidence.stdout, evidence.stderr]).toEqual([0, `Work ${workId} has no dispatch group: it was never granted\n`, '']);
    expect(JSON.parse(fairway(queue, 'evidence', '--work-id', workId, '--json').stdout).groups).toEqual([]);

    const one = fairway(queue, 'reconcile', '--work-id', workId);
    expect([one.status, one.stdout, one.stderr]).toEqual([0, `Work ${workId} has no dispatch group: it was never granted\n`, '']);
    const all = fairway(queue, 'reconcile', '--all');
    expect([all.status, all.stdout, all.stderr]).toEqual([0, 'nothing to reconcile: no unreleased dispatch group and no pending delivery barrier\n', '']);
    expect(JSON.parse(fairway(queue, 'reconcile', '--all', '--json').stdout)).toEqual({ ok: true, reconciled: [], deliveries: [] });
  });
});
