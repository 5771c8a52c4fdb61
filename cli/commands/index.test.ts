/**
 * The lazy command registry must describe exactly what each module registers:
 * `fairway --help` is printed from these summaries without loading a module,
 * and a command's module is picked by the names and aliases listed here.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../context.ts';
import { commandName } from '../main.ts';
import { COMMANDS, commandEntry } from './index.ts';

const ctx: CliContext = { io: { out() {}, err() {} }, globals: () => ({}), action: (fn) => async (...args) => fn({}, ...args) };

describe('lazy command registry', () => {
  it.each(COMMANDS.map((e) => [e.commands.map((c) => c.name).join(', '), e] as const))('the summaries of %s match what its module registers', async (_names, entry) => {
    const program = new Command('fairway');
    (await entry.load())(program, ctx);
    const help = program.createHelp();
    const registered = program.commands.map((c) => ({ name: c.name(), aliases: c.aliases(), term: help.subcommandTerm(c), description: help.subcommandDescription(c) }));
    expect(registered).toEqual(entry.commands);
  });

  it('every command name and alias picks exactly one module', () => {
    const names = COMMANDS.flatMap((e) => e.commands.flatMap((c) => [c.name, ...c.aliases]));
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(commandEntry(n)?.commands.some((c) => c.name === n || c.aliases.includes(n))).toBe(true);
  });

  it('finds the command after global options and their values, and behind `help`', () => {
    expect(commandName(['--ledger', 'verify', 'replay', '--json'])).toBe('replay');
    expect(commandName(['--json', '--ledger=x', 'verify'])).toBe('verify');
    expect(commandName(['help', 'submit-work'])).toBe('submit-work');
    expect(commandName(['-R', 'octo-org/app', 'state'])).toBe('state');
    expect(commandName(['--dir', 'replay', '--github', 'o/r', 'stats'])).toBe('stats');
    expect(commandName(['--help'])).toBeUndefined();
    expect(commandName(['--version'])).toBeUndefined();
  });
});
