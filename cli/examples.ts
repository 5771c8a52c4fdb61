/**
 * One worked example per command, shown at the end of `fairway COMMAND --help` (README "Using the CLI"
 * §1) together with the global options. `cli/examples.test.ts` checks that every command
 * of the registry has one.
 */
import type { Command } from 'commander';
import { EXIT_CODES_HELP } from './output.ts';

export const EXAMPLES: Readonly<Record<string, string>> = {
  verify: 'fairway -R octo-org/app verify --json   # or --dir PATH, or --ledger work-queue.jsonl offline',
  tui: 'fairway -R octo-org/app tui',
  replay: 'fairway --dir ../app replay --json --output state.json',
  stats: 'fairway -R octo-org/app stats --format json',
  state: 'fairway -R octo-org/app state --state available --pool default --limit 80 --format jsonl',
  inspect: 'fairway -R octo-org/app inspect --work-id 3f9c2a1b   # a unique prefix (8+ characters) is enough',
  trace: 'fairway -R octo-org/app --request-id cli-submit-1a2b3c4d trace --limit 20',
  'submit-work': 'echo \'{"plan":"upgrade the SDK"}\' | fairway -R octo-org/app submit-work --file - --node-key sdk-upgrade --priority 2',
  'submit-graph': 'fairway -R octo-org/app --request-id release-42 submit-graph --file graph.json --graph-id release-42',
  'dispatch-next': 'fairway -R octo-org/app dispatch-next --pool default --max-claims 4 --max-dispatches 2',
  launch: 'fairway -R octo-org/app launch --next --pool default   # inside the dispatcher\'s Actions job',
  activate: 'fairway activate --assignment "$RUNNER_TEMP/assignment.json" --out assignment.json   # worker step',
  observe: 'fairway -R octo-org/app observe --pool default',
  reconcile: 'fairway -R octo-org/app reconcile --dispatch-id d_7e41c0aa --cancel-reserved',
  evidence: 'fairway --ledger work-queue.jsonl evidence --work-id 3f9c2a1b',
  finish: 'fairway finish --dispatch-id "$DISPATCH_ID" --handle h1 --outcome completed   # worker step',
  result: 'fairway -R octo-org/app result --claim-id c_5d0e9b12 --evidence receipts.json',
  'delivery-failure': 'fairway -R octo-org/app delivery-failure --claim-id c_5d0e9b12 --evidence receipts.json --attempts 5',
  deploy: 'fairway -R octo-org/app deploy --from-config --pool default',
  control: 'fairway -R octo-org/app control --name grants_paused --paused true --reason incident_1234',
  'cancel-work': 'fairway -R octo-org/app cancel-work --work-id 3f9c2a1b,88d1e0c4 --reason operator_cancelled --request-id incident-cancel',
  'cancel-claim': 'fairway -R octo-org/app cancel-claim --claim-id c_5d0e9b12 --reason operator_cancelled --request-id incident-revoke',
  reprioritize: 'fairway -R octo-org/app reprioritize --work-id 3f9c2a1b --priority 1 --reason operator_reprioritized',
  policy: 'fairway -R octo-org/app policy --from-config --epoch epoch-2',
  compact: 'fairway --dir . compact --json',
  explain: 'fairway -R octo-org/app explain --pool default --work-id 3f9c2a1b',
  simulate: 'fairway simulate --settings aw-work-queue.json --workload workload.json --grants 50',
  snapshot: 'fairway -R octo-org/app snapshot --role producer --out snapshot.json',
  mcp: 'fairway mcp --snapshot snapshot.json --intents intents/',
  'process-intents': 'fairway -R octo-org/app process-intents --snapshot snapshot.json --intents intents/',
  demo: 'fairway demo --out demo.jsonl',
  console: 'fairway --dir ../app console --port 3000',
  doctor: 'fairway --dir . doctor --fix',
  completion: 'fairway completion bash > ~/.local/share/bash-completion/completions/fairway',
  next: 'fairway -R octo-org/app next --pool default --work-id 3f9c2a1b   # its place in the predicted line',
  issues: 'fairway -R octo-org/app issues sync --dry-run --json   # what the backing-Issue projector would change',
};

/** Appends the command's worked example and the exit codes to its `--help`. */
export function addExample(command: Command): void {
  const example = EXAMPLES[command.name()];
  command.addHelpText('after', `${example === undefined ? '' : `\nExample:\n  ${example}\n`}\n${EXIT_CODES_HELP}`);
}
