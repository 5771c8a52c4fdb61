/**
 * A queue on a real local Git repository for the operator-reference example tests
 * (tests/integration/operator-reference*.test.ts), built through the real entry point:
 * `submit-work` (creating the queue), `submit-graph` (graph "sdk": code, docs waiting on code,
 * and two roots x, y) and `dispatch-next --pool default --max-claims 2 --max-dispatches 2`
 * (granting the first Work and code). Every run goes through `dirCli` (`--dir REPO`).
 */
import { expect } from 'vitest';
import { dirCli, fixtureRepo, inputFiles } from './fixture-repo.ts';

/** The graph "sdk" the queue admits (request ref-submit-sdk). */
export const SDK_GRAPH = [
  { node_key: 'code', payload: { plan: 'upgrade the SDK' } },
  { node_key: 'docs', payload: { plan: 'document it' }, depends_on: [{ kind: 'work', node_key: 'code' }] },
  { node_key: 'x', payload: { plan: 'x' } },
  { node_key: 'y', payload: { plan: 'y' } },
];

export interface OperatorQueue {
  repo: string;
  /** Writes a JSON input file and returns its path. */
  file: (name: string, value: unknown) => string;
  /** `fairway --dir REPO ...args`, failing the test on an internal error. */
  run: (...args: string[]) => ReturnType<typeof dirCli>;
  /** Work ids by node key. */
  work: { first: string; code: string; docs: string; x: string; y: string };
  /** The two granted Claims (first Work, then code) and their dispatch groups. */
  claims: string[];
  dispatches: string[];
  /** The request ids of the submission of the graph and of the grant. */
  submitRequest: string;
  dispatchRequest: string;
}

export async function operatorQueue(prefix: string): Promise<OperatorQueue> {
  const repo = fixtureRepo(prefix);
  const file = inputFiles(`${prefix}in-`);
  const run = (...args: string[]) => dirCli(repo, ...args);
  const first = await run('--json', 'submit-work', '--file', file('work.json', { plan: 'first' }), '--node-key', 'first');
  expect(first.code, first.out).toBe(0);
  const sub = await run('--json', '--request-id', 'ref-submit-sdk', 'submit-graph', '--file', file('graph.json', SDK_GRAPH), '--graph-id', 'sdk');
  expect(sub.code, sub.out).toBe(0);
  const grant = await run('--json', '--request-id', 'ref-dispatch-1', 'dispatch-next', '--pool', 'default', '--max-claims', '2', '--max-dispatches', '2');
  expect(grant.code, grant.out).toBe(0);
  expect(grant.json.granted_claims).toBe(2);
  const [code, docs, x, y] = sub.json.work_ids as string[];
  return {
    repo, file, run,
    work: { first: first.json.work_ids[0], code: code!, docs: docs!, x: x!, y: y! },
    claims: grant.json.claims.map((c: { claim_id: string }) => c.claim_id),
    dispatches: grant.json.dispatches.map((d: { dispatch_id: string }) => d.dispatch_id),
    submitRequest: 'ref-submit-sdk',
    dispatchRequest: 'ref-dispatch-1',
  };
}
