/**
 * `fairway tui` (alias `interactive`): the keyboard browser with checked
 * cancel and priority actions (operator reference "Keyboard browser and
 * checked actions"). Reads through the same store flags as every command.
 */
import type { CommandModule } from '../context.ts';
import { UsageError } from '../output.ts';

export const registerTui: CommandModule = (program, ctx) => {
  program.command('tui')
    .alias('interactive')
    .description('Keyboard browser: tree of graphs, Work and Claim attempts beside details; search, multi-select, reviewed cancel/priority actions; refreshes every 10 s while idle. Needs an interactive terminal of at least 45x16.')
    .action(ctx.action(async (g) => {
      if (g.json === true) throw new UsageError('tui is interactive and has no --json output; use state --json or replay --json', 'option_invalid');
      // The keys arrive on standard input, so the ledger cannot: the read would wait on the keyboard forever.
      if (g.ledger === '-') throw new UsageError('tui reads its keys from standard input, so it cannot read the ledger there (--ledger -): give --ledger FILE', 'option_invalid');
      if (g.requestId !== undefined) throw new UsageError('tui generates a stable request id for each reviewed action; --request-id is not accepted', 'option_invalid');
      // ink + React only when the TUI runs: the compiled CLI carries them in this command's own
      // lazily loaded chunk (bin/build.js), so an installed CLI needs no other package for it.
      const { runTui } = await loadInteractive(() => import('../tui/run.ts')).catch((e: unknown) => {
        // A checkout installed without devDependencies (npm ci --omit=dev) compiles without them.
        if ((e as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' && /'(ink|react)'/.test(String((e as Error).message))) {
          throw new UsageError('the keyboard browser needs ink and React, which this checkout was installed without (npm ci --omit=dev): run `npm ci` here, or use the released CLI (npm i -g ./fairway-VERSION.tgz), which carries them', 'tui_not_installed');
        }
        throw e;
      });
      await runTui(g, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
    }));
};

/** The variables ink reads (through is-in-ci) once, when it loads, to decide it runs in CI. */
const CI_VARIABLES = ['CI', 'CONTINUOUS_INTEGRATION'] as const;

/**
 * Loads the TUI with ink's CI detection off. Under CI=1 ink writes only the last frame, at exit,
 * so a user whose shell sets CI saw the alternate screen stay blank until they quit. The TUI
 * runs only on an interactive terminal (runTui refuses any other), which is interactive whatever
 * CI says. The variables are restored at once: git and every child process see them unchanged.
 */
async function loadInteractive<T>(load: () => Promise<T>): Promise<T> {
  const saved = CI_VARIABLES.map((name) => [name, process.env[name]] as const);
  for (const name of CI_VARIABLES) delete process.env[name];
  try {
    return await load();
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}
