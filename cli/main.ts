/**
 * The `fairway` operator CLI. Commands stay thin: they read input through
 * lib/, ask the engine, and print through `output.ts`.
 */
import { Command, CommanderError, Option } from 'commander';
import { demo } from './commands/demo.ts';
import { replay } from './commands/replay.ts';
import { verify } from './commands/verify.ts';
import { EXIT_OK, EXIT_USAGE, UsageError, processIo, reportFailure, type Io } from './output.ts';

interface GlobalOptions {
  json?: boolean;
  ledger?: string;
}

function requireLedger(opts: GlobalOptions, command: string): string {
  if (opts.ledger === undefined) throw new UsageError(`${command} needs --ledger FILE (Git-backed queues arrive with the ledger stores)`, 'missing_ledger');
  return opts.ledger;
}

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const json = argv.includes('--json');
  let exit = EXIT_OK;
  const program = new Command('fairway')
    .description('Fair, verifiable work queue on a Git-hosted ledger (version-3 work-queue protocol).')
    .addOption(new Option('--ledger <file>', 'read a work-queue.jsonl ledger file offline'))
    .option('--json', 'print exactly one JSON object (errors: {"ok":false,"error":{...}})')
    .showHelpAfterError('(run fairway --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => { if (!json) io.err(s); },
    })
    .addHelpText('after', `
Exit codes: 0 success, 2 usage error, 3 protocol or ledger error.

Examples:
  fairway verify --ledger work-queue.jsonl          validate every record and the causal chain
  fairway replay --ledger work-queue.jsonl --json   projection summary as one JSON object
  fairway demo                                      build and replay a small demo queue`);

  const run = (action: (opts: GlobalOptions) => Promise<void>) => async () => {
    const opts = program.opts<GlobalOptions>();
    try {
      await action(opts);
    } catch (e) {
      exit = reportFailure(io, e, opts.json === true);
    }
  };

  program.command('verify')
    .description('Validate a ledger: codec, closed schemas, causal chain, every operation and Claim; print tip, commits and policy epoch.')
    .action(run((o) => verify(io, { ledger: requireLedger(o, 'verify'), json: o.json === true })));
  program.command('replay')
    .description('Replay a ledger and print the projection summary: Work by state, Claims, reservations, barriers, controls, policy.')
    .action(run((o) => replay(io, { ledger: requireLedger(o, 'replay'), json: o.json === true })));
  program.command('demo')
    .description('Build a small demo queue through the engine request builders and print what the scheduler decided.')
    .option('--out <file>', 'also write the demo ledger to this file')
    .action(async (cmdOpts: { out?: string }) => run((o) => demo(io, { json: o.json === true, out: cmdOpts.out }))());

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT_OK;
      return reportFailure(io, new UsageError(e.message.replace(/^error: /, ''), 'usage_error'), json) || EXIT_USAGE;
    }
    return reportFailure(io, e, json);
  }
  return exit;
}
