/**
 * What every command module receives: the IO sink, the global options and a
 * wrapper that turns thrown errors into the documented output and exit code.
 */
import type { Command } from 'commander';
import { normalizeGlobals, resolveToken, type GlobalOptions, type RawGlobals } from './globals.ts';
import { reportFailure, type Io } from './output.ts';
import { clearProgress } from './progress-lines.ts';

export type { GlobalOptions } from './globals.ts';

export interface CliContext {
  io: Io;
  /** Global options as parsed and normalised (valid inside an action). */
  globals(): GlobalOptions;
  /** Wraps an action: errors become `{"ok":false,...}` / a message, and the exit code. */
  action<A extends unknown[]>(fn: (globals: GlobalOptions, ...args: A) => Promise<void>): (...args: A) => Promise<void>;
}

export function createContext(io: Io, program: Command, setExit: (code: number) => void): CliContext {
  let normalized: GlobalOptions | undefined;
  const globals = () => (normalized ??= normalizeGlobals({ ...program.opts<RawGlobals>(), branchGiven: program.getOptionValueSource('branch') === 'cli' }, io));
  return {
    io,
    globals,
    action: (fn) => async (...args) => {
      // Errors are JSON under --json and under a read command's --format json|jsonl.
      const command = args.at(-1) as (CommandLike & { opts?: () => Record<string, unknown> }) | undefined;
      const format = typeof command?.opts === 'function' ? command.opts().format : undefined;
      const json = program.opts<RawGlobals>().json === true || format === 'json' || (format === 'jsonl' ? 'jsonl' : false);
      try {
        const g = globals();
        // The GitHub store needs its token up front (GH_TOKEN, GITHUB_TOKEN, then `gh auth token`).
        if (g.github !== undefined && g.token === undefined) {
          const found = await resolveToken(g.host!);
          if (found !== undefined) g.token = found.token;
        }
        await fn(g, ...args);
      } catch (e) {
        // A replay that failed may have left its progress line drawn: the error gets its own line.
        clearProgress();
        setExit(reportFailure(io, e, json, typeof command?.name === 'function' ? commandPath(command) : undefined));
      }
    },
  };
}

export type CommandModule = (program: Command, ctx: CliContext) => void;

interface CommandLike {
  name: () => string;
  parent: CommandLike | null;
}

/**
 * The words after `fairway` that run `command`: `issues resolve` for a subcommand, so a usage
 * error points at `fairway issues resolve --help`, not at a `fairway resolve` that does not exist.
 */
export function commandPath(command: CommandLike): string {
  const names: string[] = [];
  for (let c: CommandLike | null = command; c !== null && c.parent !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
