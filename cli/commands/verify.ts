/** `fairway verify --ledger FILE`: full validation, nothing else. */
import { replayLedger } from '../../engine/replay/index.ts';
import { readLedgerFile } from '../../lib/ledger-file.ts';
import { printJson, type Io } from '../output.ts';

export async function verify(io: Io, opts: { ledger: string; json: boolean }): Promise<void> {
  const bytes = await readLedgerFile(opts.ledger);
  const started = performance.now();
  const projection = replayLedger(bytes);
  const ms = Math.round(performance.now() - started);
  const result = { ok: true, tip: projection.tip, commits: projection.commitCount, policy_epoch: projection.policyEpoch };
  if (opts.json) printJson(io, result);
  else io.out(`ledger valid: ${result.commits} commits, tip ${result.tip ?? '(empty)'}, policy epoch ${result.policy_epoch ?? '-'} (${bytes.length} bytes in ${ms} ms)`);
}
