/**
 * What every command module receives: the IO sink, the global options and a
 * wrapper that turns thrown errors into the documented output and exit code.
 */
import type { Command } from 'commander';
import { reportFailure, type Io } from './output.ts';

export interface GlobalOptions {
  json?: boolean;
  ledger?: string;
  repo?: string;
  remote?: string;
  github?: string;
  branch?: string;
  requestId?: string;
  principal?: string;
}

export interface CliContext {
  io: Io;
  /** Global options as parsed (valid inside an action). */
  globals(): GlobalOptions;
  /** Wraps an action: errors become `{"ok":false,...}` / a message, and the exit code. */
  action<A extends unknown[]>(fn: (globals: GlobalOptions, ...args: A) => Promise<void>): (...args: A) => Promise<void>;
}

export function createContext(io: Io, program: Command, setExit: (code: number) => void): CliContext {
  const globals = () => program.opts<GlobalOptions>();
  return {
    io,
    globals,
    action: (fn) => async (...args) => {
      const g = globals();
      try {
        await fn(g, ...args);
      } catch (e) {
        setExit(reportFailure(io, e, g.json === true));
      }
    },
  };
}

export type CommandModule = (program: Command, ctx: CliContext) => void;
