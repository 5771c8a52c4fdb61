/**
 * The writer side of "one graph stays in one pool" (spec 7.15): without
 * `--graph-id`, `submit-work` and `submit-graph` put each node in its pool's own
 * default graph (named after the pool; pool `default` keeps graph `default`),
 * so Work of a second pool never lands beside pool-`default` Work in one graph
 * (which replay, like the reference, rejects with `graph_invalid`). Runs the
 * real CLI entry point on a real Git repository and replays the branch bytes.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { resolveSubmit } from '../../engine/intents/limits.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } });
}

async function cli(repo: string, ...args: string[]): Promise<{ code: number; json: { ok: boolean; work_ids: string[]; error?: { code: string } } }> {
  let out = '';
  const code = await main(['--repo', repo, '--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

let repo: string;
let files: string;

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'fairway-graph-'));
  files = mkdtempSync(join(tmpdir(), 'fairway-graph-files-'));
  git(repo, 'init', '-q', '-b', 'main');
  mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
  writeFileSync(join(repo, '.github', 'workflows', 'aw.json'), JSON.stringify({ work_queue: { pools: { batch: {} } } }));
  writeFileSync(join(repo, WORKER_WORKFLOW), workerWorkflowYaml());
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'settings');
});

function file(name: string, value: unknown): string {
  const path = join(files, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

/** The queue branch's bytes, replayed cold on the byte path. */
function graphsOf(): Map<string, string[]> {
  const bytes = execFileSync('git', ['-C', repo, 'show', 'work-queue:work-queue.jsonl']);
  const state = replayLedger(new Uint8Array(bytes)).state;
  return new Map([...state.graphs].map(([graph, ids]) => [graph, ids.map((id) => state.works.get(id)!.pool)]));
}

describe('default graph ids never mix pools', () => {
  it('submit-work --pool batch without --graph-id lands in graph "batch", beside graph "default" of pool default, and the ledger replays', async () => {
    expect((await cli(repo, 'submit-work', '--file', file('a.json', { task: 'a' }), '--node-key', 'a')).code).toBe(0);
    expect((await cli(repo, 'submit-work', '--file', file('b.json', { task: 'b' }), '--node-key', 'b', '--pool', 'batch')).code).toBe(0);
    expect(graphsOf()).toEqual(new Map([['default', ['default']], ['batch', ['batch']]]));
  });

  it('submit-graph without --graph-id puts each node in its own pool\'s default graph; an explicit --graph-id across pools is rejected (graph_invalid) and writes nothing', async () => {
    const nodes = [{ node_key: 'x', payload: {} }, { node_key: 'y', payload: {}, pool: 'batch' }];
    expect((await cli(repo, 'submit-graph', '--file', file('g.json', nodes))).code).toBe(0);
    expect(graphsOf()).toEqual(new Map([['default', ['default']], ['batch', ['batch']]]));
    const tip = git(repo, 'rev-parse', 'work-queue');
    const mixed = await cli(repo, 'submit-graph', '--file', file('m.json', [{ node_key: 'm1', payload: {} }, { node_key: 'm2', payload: {}, pool: 'batch' }]), '--graph-id', 'mixed');
    expect(mixed.code).toBe(3);
    expect(mixed.json.error?.code).toBe('graph_invalid');
    expect(git(repo, 'rev-parse', 'work-queue')).toBe(tip);
  });
});

describe('staged submit intents (MCP work_queue_submit) use the same per-pool default graph', () => {
  it('a node without graph_id goes to its pool\'s default graph; graph_id or a worker parent\'s graph wins', () => {
    const ctx = { policy: null, intentId: 'i_1', enqueued: 1, parent: null };
    const staged = resolveSubmit({ nodes: [{ payload: {} }, { payload: {}, pool: 'batch' }] } as never, ctx);
    expect(staged.nodes.map((n) => [n.pool ?? 'default', n.graph_id])).toEqual([['default', 'default'], ['batch', 'batch']]);
    const explicit = resolveSubmit({ graph_id: 'g', nodes: [{ payload: {}, pool: 'batch' }] } as never, ctx);
    expect(explicit.graphId).toBe('g');
    expect(explicit.nodes[0]!.graph_id).toBeUndefined();
  });
});
