/**
 * Each command's `--help` example (cli/examples.ts) can run as written: it names every option
 * the command makes mandatory (commander `requiredOption` / `makeOptionMandatory`), which would
 * otherwise stop it with option_missing before doing anything.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/commands/index.ts';
import { createContext } from '../../cli/context.ts';
import { EXAMPLES } from '../../cli/examples.ts';

describe('command --help examples', () => {
  it('name every mandatory option of their command (deploy --from-config)', async () => {
    const program = new Command('fairway');
    const ctx = createContext({ out: () => undefined, err: () => undefined }, program, () => undefined);
    for (const entry of COMMANDS) (await entry.load())(program, ctx);
    const missing: string[] = [];
    for (const command of program.commands) {
      const words = (EXAMPLES[command.name()] ?? '').split(/\s+/);
      for (const option of command.options) if (option.mandatory && !words.includes(option.long!)) missing.push(`${command.name()} ${option.long!}`);
    }
    expect(missing).toEqual([]);
  });
});
