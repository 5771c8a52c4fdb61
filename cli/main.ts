/**
 * The `fairway` operator CLI. Commands stay thin: they read input through
 * lib/, ask the engine, and print through `output.ts`. Each command lives in
 * its own module under `commands/` and is listed in `commands/index.ts`.
 * Start-up loads only the module of the command being run: `--help` lists
 * every command from the registry's summaries without loading any of them.
 */
import { Command, CommanderError, Help, Option } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import { COMMANDS, commandEntry } from './commands/index.ts';
import { commandPath, createContext } from './context.ts';
import { addExample } from './examples.ts';
import { EXIT_CODES_HELP, EXIT_OK, UsageError, printJson, processIo, reportFailure, type FailureForm, type Io } from './output.ts';
import { requestIdArg } from './parse.ts';

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const json = argv.includes('--json') || jsonFormat(argv);
  let exit = EXIT_OK;
  const program = new Command('fairway')
    .description('Fair, verifiable work queue on a Git-hosted ledger (version-3 work-queue protocol).')
    .addOption(new Option('-R, --repo <[HOST/]OWNER/REPO>', 'the GitHub repository holding the queue branch, like gh (GH_HOST names the host; token: GH_TOKEN, GITHUB_TOKEN or `gh auth token`)'))
    .addOption(new Option('--dir <path>', 'local Git repository holding the queue branch (default: the current directory)'))
    .addOption(new Option('--remote <name>', 'with a local clone (--dir, default: the current directory): the remote branch is the authority'))
    .addOption(new Option('--github <[HOST/]OWNER/REPO>', 'alias of --repo OWNER/REPO'))
    .addOption(new Option('--ledger <file>', 'read a work-queue.jsonl ledger file offline (read-only commands; - reads stdin)'))
    .addOption(new Option('--branch <name>', 'queue branch').default('work-queue'))
    .addOption(new Option('--request-id <id>', 'stable logical request identity for mutations (retries reuse it; 1..256 UTF-8 bytes, no control characters); a lookup for trace/explain (a unique prefix of 8+ characters works)').argParser(requestIdArg))
    .addOption(new Option('--principal <id>', 'local operator principal, a positive decimal id (unauthenticated in local mode)'))
    .option('--json', 'print exactly one JSON object (errors: {"ok":false,"error":{...}})')
    .version(pkg.version, '-V, --version', 'print the Fairway version')
    .exitOverride()
    .configureHelp(HELP)
    .configureOutput({
      writeOut: (s) => io.out(s),
      // Commander writes here only the help it shows in place of a missing subcommand; under
      // --json that run answers `command_missing` instead (below), so the help is not printed.
      writeErr: (s) => void (json || io.err(s)),
      // Commander's own error line is not printed: reportFailure prints every error once, with its code.
      outputError: () => {},
    })
    .addHelpText('after', `
${EXIT_CODES_HELP}

Examples:
  fairway verify                                    validate this repository's queue: every record and the causal chain
  fairway -R octo-org/app state --format jsonl      the queue of a GitHub repository, one row per line
  fairway --dir ../app replay --json                the full projection of a local repository's queue
  fairway demo                                      build and replay a small demo queue`);

  const ctx = createContext(io, program, (code) => (exit = code));
  const named = commandName(argv);
  if (json && named === undefined && (argv.includes('--version') || argv.includes('-V'))) {
    printJson(io, { ok: true, version: pkg.version });
    return EXIT_OK;
  }
  // `fairway --json` alone: one JSON object (a usage error), not the help text a script cannot parse.
  if (json && named === undefined && !argv.includes('--help') && !argv.includes('-h')) {
    return reportFailure(io, new UsageError('no command given; fairway --help lists them', 'command_missing'), json);
  }
  const entry = named === undefined ? undefined : commandEntry(named);
  // `fairway help X` for a command that does not exist: a usage error, as `fairway X` is.
  const words = positionals(argv);
  if (entry === undefined && words[0] === 'help' && words[1] !== undefined) {
    return reportFailure(io, new UsageError(`unknown command '${named}'; fairway --help lists them`, 'usage_error'), json);
  }
  // The deepest command commander dispatched to: its usage errors point at its own help
  // (`fairway issues resolve --help`), not at the top-level command's.
  let running: Command | undefined;
  if (entry !== undefined) {
    (await entry.load())(program, ctx);
    for (const c of program.commands) {
      addExample(c);
      // A subcommand's help (`issues sync --help`) ends with the exit codes too; its examples are its own.
      for (const sub of c.commands) sub.addHelpText('after', EXIT_CODES_HELP);
    }
    checkOneValueOptions(program);
    const track = (c: Command): void => {
      if (c.commands.length > 0) c.hook('preSubcommand', (_parent, sub) => void (running = sub));
      c.commands.forEach(track);
    };
    track(program);
  } else {
    // Help, --version or an unknown command: every command by its summary, no module loaded.
    const terms = new Map<Command, string>();
    for (const e of COMMANDS) {
      for (const c of e.commands) terms.set(program.command(c.name).aliases(c.aliases).description(c.description), c.term);
    }
    const help = program.createHelp();
    program.configureHelp({ ...HELP, subcommandTerm: (cmd) => terms.get(cmd) ?? help.subcommandTerm(cmd) });
  }

  const helpPath = () => (running !== undefined ? commandPath(running) : entry === undefined ? undefined : named);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // `fairway issues --json` without its subcommand: one JSON usage error, as `fairway --json` alone.
      if (e.code === 'commander.help' && e.exitCode !== 0 && json) {
        const path = helpPath();
        return reportFailure(io, new UsageError(`no subcommand given; fairway ${path} --help lists them`, 'command_missing'), json, path);
      }
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT_OK;
      return reportFailure(io, new UsageError(e.message.replace(/^error: /, ''), commanderCode(e.code)), json, helpPath());
    }
    return reportFailure(io, e, json, helpPath());
  }
  return exit;
}

/**
 * Every `--help`: the global options too, and a mandatory option says so (`--reason <code>
 * sanitized reason code (required)`), so the help names what a run cannot do without.
 */
const HELP: Partial<Help> = {
  showGlobalOptions: true,
  optionDescription(this: Help, option: Option): string {
    const description = Help.prototype.optionDescription.call(this, option);
    return option.mandatory ? `${description} (required)` : description;
  },
};

/**
 * Options whose empty value means something (the Policy's default fairness key is `""`, an empty
 * search matches everything) or is named by the command itself (`--reason`: `reason_invalid`).
 */
const EMPTY_ALLOWED = new Set(['--fairness-key', '--search', '--reason']);

/**
 * What a one-value option cannot be given, each a usage error of that flag (`option_invalid`,
 * exit 2) found before any file or the queue is read. Options that collect their values (an
 * array default, or variadic) are left alone: they may repeat, and comma-separated ids keep
 * `targets_missing`.
 * - twice (`--pool a --pool b`, `--request-id x --request-id y`): not the last one silently winning;
 * - empty, for an option that names something (`--pool ''`, `--work-id ''`, `--ledger ''`,
 *   `--generation ''`): not a payload file's `input_invalid`, a commit's `schema_invalid`, or
 *   "pool  is not configured";
 * - for a global option, another option (`--request-id --json ...`: the flag swallowed what
 *   followed it, and the run would commit a request named `--json` while printing text; a
 *   command's own option followed by another is commander's "argument missing", and a value
 *   written `--search=--x` stays a value).
 * Options with a value parser of their own (`--request-id`'s bounds, `--priority`, choices) keep
 * its message, which runs first.
 */
function checkOneValueOptions(command: Command): void {
  const global = command.parent === null;
  for (const option of command.options) {
    if (!(option.required || option.optional) || option.variadic || Array.isArray(option.defaultValue)) continue;
    const flag = option.long ?? option.short ?? option.flags;
    const emptyAllowed = EMPTY_ALLOWED.has(flag);
    let given: unknown;
    command.on(`option:${option.name()}`, (value: unknown) => {
      if (given !== undefined) {
        throw new CommanderError(2, 'commander.invalidArgument', `option '${option.flags}' is given twice (${JSON.stringify(given)}, then ${JSON.stringify(value)}); give it once`);
      }
      given = value;
      if (value === '' && !emptyAllowed) throw new CommanderError(2, 'commander.invalidArgument', `${flag} must be a non-empty value (an empty one names nothing)`);
      if (global && typeof value === 'string' && /^--[a-z]/.test(value)) {
        throw new CommanderError(2, 'commander.invalidArgument', `${flag} must be given a value, not the option ${JSON.stringify(value)} (was the value left out?)`);
      }
    });
  }
  for (const sub of command.commands) checkOneValueOptions(sub);
}

/** Global options that take a value (the value is not the command name). */
const VALUE_OPTIONS = new Set(['--ledger', '-R', '--repo', '--dir', '--remote', '--github', '--branch', '--request-id', '--principal']);

/** The command `argv` runs (`help X` asks for X), or undefined when it names none. */
export function commandName(argv: readonly string[]): string | undefined {
  const [first, second] = positionals(argv);
  return first === 'help' && second !== undefined ? second : first;
}

/** The words of `argv` that are not options or global options' values (`help --json` is `help`). */
function positionals(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return [...words, ...argv.slice(i + 1)];
    if (a.startsWith('-')) {
      if (VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    words.push(a);
  }
  return words;
}

/** Stable codes for the usage errors commander finds (all exit 2). */
function commanderCode(code: string): string {
  switch (code) {
    case 'commander.invalidArgument': return 'option_invalid';
    case 'commander.unknownOption': return 'unknown_option';
    case 'commander.missingMandatoryOptionValue':
    case 'commander.optionMissingArgument':
    case 'commander.missingArgument': return 'option_missing';
    case 'commander.conflictingOption': return 'option_conflict';
    default: return 'usage_error';
  }
}

/** `--format json|jsonl` asks for JSON errors too (the format of a read command): `jsonl` one record on one line. */
function jsonFormat(argv: readonly string[]): FailureForm {
  for (const [i, a] of argv.entries()) {
    const format = a.startsWith('--format=') ? a.slice('--format='.length) : a === '--format' ? argv[i + 1] : undefined;
    if (format === 'json') return true;
    if (format === 'jsonl') return 'jsonl';
  }
  return false;
}
