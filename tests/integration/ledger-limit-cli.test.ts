/**
 * The operating envelope through the real CLI on a real local Git repository (spec 7.17,
 * issue 11 §1/§2): a drained queue installs a Policy with a small admission watermark; submits
 * fill it until the next one is refused with `ledger_limit` before any write (the branch and the
 * ledger are unchanged, the error carries the remaining budget); a closure (cancel-claim) still
 * commits inside the recovery reserve past the watermark; `compact` is the relief valve; a Policy
 * that raises a hard ceiling is `policy_invalid` and writes nothing.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fixtureRepo, git, inputFiles, repoCli } from '../support/fixture-repo.ts';

const tip = (repo: string): string => git(repo, 'rev-parse', 'refs/heads/work-queue');
const ledger = (repo: string): string => `${git(repo, 'show', 'refs/heads/work-queue:work-queue.jsonl')}\n`;
const ledgerSize = (repo: string): number => Buffer.byteLength(ledger(repo));

const cli = repoCli;

let repo: string;
let file: (name: string, value: unknown) => string;

beforeEach(() => {
  repo = fixtureRepo('fairway-envelope-');
  file = inputFiles('fairway-envelope-files-');
});

/** The installed genesis Policy of the queue, with `limits` overridden. */
function genesisPolicy(limits: Record<string, number>): unknown {
  const genesis = JSON.parse(ledger(repo).split('\n')[0]!);
  const policy = genesis.operations[0].policy;
  Object.assign(policy.limits, limits);
  return policy;
}

/** Bootstraps the queue and drains it (so a new Policy epoch may be installed). */
async function drainedQueue(): Promise<void> {
  const first = await cli(repo, 'submit-work', '--file', file('seed.json', { seed: true }), '--node-key', 'seed');
  expect(first.code, JSON.stringify(first.json)).toBe(0);
  const cancel = await cli(repo, 'cancel-work', '--work-id', first.json.work_ids?.[0] ?? first.json.work_id, '--reason', 'operator_cancelled');
  expect(cancel.code, JSON.stringify(cancel.json)).toBe(0);
}

describe('ledger watermark through the CLI (ledger_limit)', () => {
  it('refuses the submit past the watermark before writing, still commits a cancel-claim in the reserve, and admits again after compact', async () => {
    await drainedQueue();
    const watermark = ledgerSize(repo) + 40_000;
    const installed = await cli(repo, 'policy', '--file', file('small.json', genesisPolicy({ ledger_bytes: watermark })), '--epoch', 'small');
    expect(installed.code, JSON.stringify(installed.json)).toBe(0);

    const payload = { p: 'x'.repeat(2000) };
    const first = await cli(repo, 'submit-work', '--file', file('w0.json', payload), '--node-key', 'w0');
    expect(first.code, JSON.stringify(first.json)).toBe(0);
    const grant = await cli(repo, 'dispatch-next', '--max-claims', '1');
    expect(grant.code, JSON.stringify(grant.json)).toBe(0);
    const claimId = grant.json.claims[0].claim_id as string;

    let refused: any = null;
    for (let i = 1; i < 40 && refused === null; i++) {
      const before = { tip: tip(repo), bytes: ledger(repo) };
      const r = await cli(repo, 'submit-work', '--file', file(`w${i}.json`, payload), '--node-key', `w${i}`);
      if (r.code === 0) {
        expect(ledgerSize(repo)).toBeLessThanOrEqual(watermark);
        continue;
      }
      refused = r.json;
      expect(tip(repo), 'a refused submit moves nothing').toBe(before.tip);
      expect(ledger(repo), 'a refused submit writes nothing').toBe(before.bytes);
    }
    expect(refused?.error?.code, JSON.stringify(refused)).toBe('ledger_limit');
    const size = ledgerSize(repo);
    expect(refused.error.details).toMatchObject({ limit: 'ledger_bytes', watermark, admission_remaining: watermark - size });
    expect(refused.error.details.ledger_bytes).toBeGreaterThan(watermark);

    const stats = await cli(repo, 'stats');
    expect(stats.json.envelope).toMatchObject({ bytes: size, ledger_bytes: watermark, admission_remaining: watermark - size, warning: 'near_watermark' });
    expect(stats.json.envelope.reserve).toBeGreaterThan(0);

    // A new Claim is admission too (tests/lifecycle/envelope-cli.test.ts refuses dispatch-next the same way).
    // A closure is not: cancel-claim commits inside the recovery reserve.
    const cancel = await cli(repo, 'cancel-claim', '--claim-id', claimId, '--reason', 'operator_cancelled');
    expect(cancel.code, JSON.stringify(cancel.json)).toBe(0);

    // compact: the budget is measured on the retained ledger (the checkpoint root).
    const compact = await cli(repo, 'compact');
    expect(compact.code, JSON.stringify(compact.json)).toBe(0);
    expect(ledgerSize(repo)).toBeLessThan(size);
    const small = await cli(repo, 'submit-work', '--file', file('tiny.json', { t: 1 }), '--node-key', 'tiny');
    expect(small.code, `after compact: ${JSON.stringify(small.json)}`).toBe(0);
  });
});

describe('hard ceilings through the CLI (policy --file)', () => {
  it('a Policy raising ledger_bytes one byte over the 64 MiB ceiling is policy_invalid and writes nothing', async () => {
    await drainedQueue();
    const before = tip(repo);
    const r = await cli(repo, 'policy', '--file', file('big.json', genesisPolicy({ ledger_bytes: 67108864 + 1 })), '--epoch', 'big');
    expect(r.json.error?.code, JSON.stringify(r.json)).toBe('policy_invalid');
    expect(r.json.error.message).toContain('limits.ledger_bytes');
    expect(r.json.error.message).toContain('67108864');
    expect(tip(repo)).toBe(before);
    const equal = await cli(repo, 'policy', '--file', file('eq.json', genesisPolicy({ ledger_bytes: 67108864, recovery_bytes: 1_000_000 })), '--epoch', 'eq');
    expect(equal.code, JSON.stringify(equal.json)).toBe(0);
  });
});

describe('graph_nodes counts Issue/PR gates through the CLI (submit-graph, spec 7.16)', () => {
  it('admits 2 Work + 1 shared gate under graph_nodes 3 and refuses 2 Work + 2 gates (completed and closed are distinct) before writing, naming the node', async () => {
    await drainedQueue();
    const installed = await cli(repo, 'policy', '--file', file('g3.json', genesisPolicy({ graph_nodes: 3 })), '--epoch', 'g3');
    expect(installed.code, JSON.stringify(installed.json)).toBe(0);
    const queueRepo = JSON.parse(ledger(repo).split('\n')[0]!).actor.repository as string;
    const gate = (condition: string) => ({ kind: 'issue', condition, resource: { host: 'github.com', kind: 'issue', repository: queueRepo, repository_id: '1', resource_id: '100007', number: '7' } });

    const before = tip(repo);
    const over = await cli(repo, 'submit-graph', '--graph-id', 'two-gates', '--file', file('over.json', [
      { node_key: 'a', payload: { t: 'a' }, depends_on: [gate('completed')] },
      { node_key: 'b', payload: { t: 'b' }, depends_on: [gate('closed')] },
    ]));
    expect(over.json.error?.code, JSON.stringify(over.json)).toBe('resource_limit');
    expect(over.json.error.details).toMatchObject({ limit: 'graph_nodes', max: 3, value: 4, node_key: 'b', graph_id: 'two-gates' });
    expect(over.json.error.message).toContain('node b');
    expect(tip(repo), 'nothing written').toBe(before);

    const shared = await cli(repo, 'submit-graph', '--graph-id', 'shared-gate', '--file', file('shared.json', [
      { node_key: 'a', payload: { t: 'a' }, depends_on: [gate('completed')] },
      { node_key: 'b', payload: { t: 'b' }, depends_on: [gate('completed')] },
    ]));
    expect(shared.code, JSON.stringify(shared.json)).toBe(0);
  });
});
