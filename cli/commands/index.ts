/**
 * The command registry, loaded lazily: each entry names the subcommands a
 * module registers (name, aliases, help term and summary, enough for
 * `fairway --help` and for picking the module) and loads the module itself
 * only when one of its commands runs. Adding a command is one entry here;
 * `cli/commands/index.test.ts` checks every entry against what its module
 * registers.
 */
import type { CommandModule } from '../context.ts';

export interface CommandSummary {
  name: string;
  aliases: string[];
  /** The term `fairway --help` lists, e.g. `replay|read` or `state [options]`. */
  term: string;
  description: string;
}

export interface CommandEntry {
  commands: CommandSummary[];
  load(): Promise<CommandModule>;
}

export const COMMANDS: CommandEntry[] = [
  {
    load: async () => (await import('./verify.ts')).registerVerify,
    commands: [
      { name: 'verify', aliases: [], term: 'verify [options]', description: 'Validate the queue\'s ledger (the queue branch of --dir, --remote or -R, or a --ledger file): codec, closed schemas, causal chain, every operation and Claim; print tip, commits and policy epoch.' },
    ],
  },
  {
    load: async () => (await import('./tui.ts')).registerTui,
    commands: [
      { name: 'tui', aliases: ['interactive'], term: 'tui|interactive', description: 'Keyboard browser: tree of graphs, Work and Claim attempts beside details; search, multi-select, reviewed cancel/priority actions; refreshes every 10 s while idle. Needs an interactive terminal of at least 45x16.' },
    ],
  },
  {
    load: async () => (await import('./replay.ts')).registerReplay,
    commands: [
      { name: 'replay', aliases: ['read'], term: 'replay|read [options]', description: 'Replay a ledger and print the projection: a summary, or with --json the full authoritative state (Work, Claims, groups, reservations, barriers, observations, controls, policy, requests).' },
    ],
  },
  {
    load: async () => (await import('./inspect.ts')).registerInspect,
    commands: [
      { name: 'stats', aliases: [], term: 'stats [options]', description: 'Counts by state, pool, priority class and fairness key; outstanding reservations, the ids of unresolved launches, and barriers; the operating envelope (ledger bytes, watermark, admission budget, reserve owed), with a warning from 80% of the watermark.' },
      { name: 'state', aliases: [], term: 'state [options]', description: 'An ASCII tree of graphs, Work and Claims (metadata only). Paginated: at most 256 rows and 64 KiB a page.' },
      { name: 'inspect', aliases: [], term: 'inspect [options]', description: 'One Work (definition metadata, readiness, dependencies, Claims, barriers) or one Claim (group, lifecycle).' },
      { name: 'trace', aliases: [], term: 'trace [options]', description: 'The causal events of a request (global --request-id) or a Claim (no payloads), paginated.' },
    ],
  },
  {
    load: async () => (await import('./submit.ts')).registerSubmit,
    commands: [
      { name: 'submit-work', aliases: [], term: 'submit-work [options]', description: 'Admit one immutable Work (default priority 3, fairness key ""). On an absent queue, create it with the Policy from .github/workflows/aw.json.' },
      { name: 'submit-graph', aliases: [], term: 'submit-graph [options]', description: 'Atomically admit a graph of 1-256 nodes; forward references resolve, cycles are rejected with their path.' },
    ],
  },
  {
    load: async () => (await import('./dispatch.ts')).registerDispatch,
    commands: [
      { name: 'dispatch-next', aliases: [], term: 'dispatch-next [options]', description: 'Commit the next assignments chosen by fair scheduling, with their reservations. Does not launch workers.' },
    ],
  },
  {
    load: async () => (await import('./launch.ts')).registerLaunch,
    commands: [
      { name: 'launch', aliases: [], term: 'launch [options]', description: 'Launch reserved worker groups on GitHub Actions: start marker, one workflow_dispatch POST, verified run binding. Runs inside the dispatcher\'s Actions job (its run is the one sender).' },
      { name: 'activate', aliases: [], term: 'activate [options]', description: 'Worker step: verify this run\'s binding from its own job context, then write the immutable assignment.' },
    ],
  },
  {
    load: async () => (await import('./observe.ts')).registerObserve,
    commands: [
      { name: 'observe', aliases: [], term: 'observe [options]', description: 'Refresh Issue/PR dependency gates of a pool and record the trusted Observations.' },
    ],
  },
  {
    load: async () => (await import('./issues.ts')).registerIssues,
    commands: [
      { name: 'issues', aliases: [], term: 'issues', description: 'Backing GitHub Issues of admitted Work: sync labels, summaries and per-Claim comments (crash-safe).' },
    ],
  },
  {
    load: async () => (await import('./reconcile.ts')).registerReconcile,
    commands: [
      { name: 'reconcile', aliases: [], term: 'reconcile [options]', description: 'Reconcile launches and releases with exact evidence; keeps capacity otherwise. Never force-releases.' },
    ],
  },
  {
    load: async () => (await import('./evidence.ts')).registerEvidence,
    commands: [
      { name: 'evidence', aliases: [], term: 'evidence [options]', description: 'Show the recorded launch evidence of a dispatch group (or of every group a Work was granted in), offline-capable.' },
    ],
  },
  {
    load: async () => (await import('./result.ts')).registerResult,
    commands: [
      { name: 'finish', aliases: [], term: 'finish [options]', description: 'Worker step: finish one original member (completed | cancelled) from this run\'s own context.' },
      { name: 'result', aliases: [], term: 'result [options]', description: 'Publish the verified Result of a completed Claim from its trusted effect receipts (no effect is rerun).' },
      { name: 'delivery-failure', aliases: [], term: 'delivery-failure [options]', description: 'Publish the guarded DeliveryFailure of a completed Claim (exact terminal evidence and exhausted budget required).' },
    ],
  },
  {
    load: async () => (await import('./deploy.ts')).registerDeploy,
    commands: [
      { name: 'deploy', aliases: [], term: 'deploy [options]', description: 'Move approved worker profiles to the verified default revision (Deployment transitions; no drain, no debt reset).' },
    ],
  },
  {
    load: async () => (await import('./admin.ts')).registerAdmin,
    commands: [
      { name: 'control', aliases: [], term: 'control [options]', description: 'Pause or resume admission or grants, or record a credential generation. Never resets fairness or releases capacity.' },
      { name: 'cancel-work', aliases: [], term: 'cancel-work [options]', description: 'Terminally cancel Work (ids repeated or comma-separated). Keeps charges and native reservations.' },
      { name: 'cancel-claim', aliases: [], term: 'cancel-claim [options]', description: 'Revoke the exact current Claims and terminally cancel their Work. Does not stop a native run or free its reservation.' },
      { name: 'reprioritize', aliases: [], term: 'reprioritize [options]', description: 'Compare-and-set priority override (1..5) for future grants of available Work.' },
      { name: 'policy', aliases: [], term: 'policy [options]', description: 'Install a new Policy epoch on a drained (quiescent) queue. Never seeds an absent queue.' },
    ],
  },
  {
    load: async () => (await import('./compact.ts')).registerCompact,
    commands: [
      { name: 'compact', aliases: [], term: 'compact', description: 'Replace the ledger with one version-3 checkpoint of its replay state; the prior Git commit keeps the full history.' },
    ],
  },
  {
    load: async () => (await import('./explain.ts')).registerExplain,
    commands: [
      { name: 'explain', aliases: [], term: 'explain [options]', description: 'Explain the next selection of a pool (planNext\'s own explanation), or why a given Work is not next: eligibility reason, blocking path and the winner.' },
    ],
  },
  {
    load: async () => (await import('./next.ts')).registerNext,
    commands: [
      { name: 'next', aliases: [], term: 'next [options]', description: 'The line: the predicted grant order of a pool\'s ready backlog from the live fairness clocks (the real selector run forward), or where one Work stands in it.' },
    ],
  },
  {
    load: async () => (await import('./simulate.ts')).registerSimulate,
    commands: [
      { name: 'simulate', aliases: [], term: 'simulate [options]', description: 'What-if: grant a synthetic workload with the real scheduler (packer, planNext, fairness clocks); print the grant sequence and a per-class/per-key share table.' },
    ],
  },
  {
    load: async () => (await import('./snapshot.ts')).registerSnapshot,
    commands: [
      { name: 'snapshot', aliases: [], term: 'snapshot [options]', description: 'Capture an immutable activation snapshot of the queue for the MCP intent server (trusted step).' },
    ],
  },
  {
    load: async () => (await import('./mcp.ts')).registerMcp,
    commands: [
      { name: 'mcp', aliases: [], term: 'mcp [options]', description: 'Serve the work-queue MCP intent tools over stdio from an activation snapshot; stage intents into a directory.' },
    ],
  },
  {
    load: async () => (await import('./process-intents.ts')).registerProcessIntents,
    commands: [
      { name: 'process-intents', aliases: [], term: 'process-intents [options]', description: 'Trusted step: publish one activation\'s staged intents (submit, dispatch_next, Claim finishes) and write receipts.' },
    ],
  },
  {
    load: async () => (await import('./demo.ts')).registerDemo,
    commands: [
      { name: 'demo', aliases: [], term: 'demo [options]', description: 'Build the demo queue (a developer\'s day) through the engine request builders and print what the scheduler decided.' },
    ],
  },
  {
    load: async () => (await import('./console.ts')).registerConsole,
    commands: [
      { name: 'console', aliases: [], term: 'console [options]', description: 'Serve the web console (explorer, DAGs, fairness, receipts, admin). Without a queue: the embedded demo queue.' },
    ],
  },
  {
    load: async () => (await import('./doctor.ts')).registerDoctor,
    commands: [
      { name: 'doctor', aliases: [], term: 'doctor [options]', description: 'Check the queue store (ref locks, scratch refs, readability, ledger validity); --fix removes stale leftovers no live process owns.' },
    ],
  },
  {
    load: async () => (await import('./completion.ts')).completionCommand(COMMANDS),
    commands: [
      { name: 'completion', aliases: [], term: 'completion <shell>', description: 'Print a shell completion script (bash, zsh or fish) for every command and option.' },
    ],
  },
];

/** The entry that registers `name` (a command name or alias). */
export function commandEntry(name: string): CommandEntry | undefined {
  return COMMANDS.find((e) => e.commands.some((c) => c.name === name || c.aliases.includes(name)));
}
