/**
 * `submit-work` and `submit-graph`: admit immutable Work through the checked
 * publisher. On an absent queue the first submission bootstraps it: one
 * genesis commit with the Policy resolved from aw.json, then the Work (7.1).
 */
import { z } from 'zod';
import { ownRecord } from '../../engine/schema/record.ts';
import { IdentitySchema } from '../../engine/schema/common.ts';
import { ResourceSchema } from '../../engine/schema/graph.ts';
import { fail } from '../../engine/errors.ts';
import { REVISION, workId } from '../../engine/identity/index.ts';
import type { JsonObject } from '../../engine/json.ts';
import { defaultGraphId } from '../../engine/intents/limits.ts';
import type { SubmitNode } from '../../engine/requests/operations.ts';
import { actorOf } from '../../lib/publisher/actor.ts';
import { publishSubmit } from '../../lib/publisher/requests.ts';
import type { CommandModule, GlobalOptions } from '../context.ts';
import { readJsonInput } from '../input.ts';
import { identityArg, priorityArg, revisionArg } from '../parse.ts';
import { printJson, type Io } from '../output.ts';
import { principalOf, queueRepository, requestIdOf, writeTarget } from '../source.ts';

/**
 * Discriminated by `kind`, so an error names the field of the edge's own kind (a plain union says
 * only "Invalid input" at the edge), and the resource is checked as replay checks it. The
 * condition/resource pairing is the builder's (engine/requests/operations.ts `checkGateEdge`).
 */
const CONDITIONS = z.enum(['completed', 'closed', 'merged']);
const EdgeSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('work'), node_key: IdentitySchema }),
  z.strictObject({ kind: z.literal('issue'), condition: CONDITIONS, resource: ResourceSchema }),
  z.strictObject({ kind: z.literal('pull_request'), condition: CONDITIONS, resource: ResourceSchema }),
]);

const NodeSchema = z.strictObject({
  node_key: IdentitySchema,
  payload: ownRecord(z.string(), z.unknown()),
  depends_on: z.array(EdgeSchema).max(64).optional(),
  priority: z.int().min(1).max(5).optional(),
  fairness_key: z.string().optional(),
  pool: IdentitySchema.optional(),
  worker_profile: IdentitySchema.optional(),
  graph_id: IdentitySchema.optional(),
  /** Spec 7.10: pin a registered immutable revision; an explicit logical contract. */
  execution_ref: z.string().regex(REVISION, 'expected a 40- or 64-hex immutable Git revision').optional(),
  admission_contract: z.string().regex(/^[a-f0-9]{64}$/, 'expected a SHA-256 hex digest').optional(),
  /** A pre-existing Issue backing this Work (docs/backing-issues.md): needs a projector rule's exact grant. */
  backing_issue: ResourceSchema.optional(),
});

const readJson = readJsonInput;

function parseNodes(value: unknown, path: string): SubmitNode[] {
  const parsed = z.array(NodeSchema).min(1).max(256).safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail('input_invalid', `${path}: ${issue.path.join('.') || '(root)'}: ${issue.message}`, { path: issue.path.join('.') });
  }
  return parsed.data as SubmitNode[];
}

/**
 * Nodes without a graph id join the graph named by `--graph-id`, or else their pool's own
 * default graph (`defaultGraphId`: pool `default` keeps graph `default`): one graph stays
 * in one pool (spec 7.15), so pools never share a default graph.
 */
function withGraphs(nodes: SubmitNode[], graphId: string | undefined): SubmitNode[] {
  return nodes.map((node) => (node.graph_id !== undefined ? node : { ...node, graph_id: graphId ?? defaultGraphId(node.pool) }));
}

/** Publishes `given` as one submit request (`requestId`: the operator's `--request-id`, else a fresh one). */
export async function submitNodes(io: Io, g: GlobalOptions, given: SubmitNode[], explicitGraph: string | undefined, requestId = requestIdOf(g, 'submit')): Promise<void> {
  const nodes = withGraphs(given, explicitGraph);
  const graphId = explicitGraph ?? defaultGraphId(nodes[0]?.pool);
  const { publisher } = writeTarget(g);
  // Spec 7.1: on an absent queue, worker routes are verified at the store's default revision
  // before publication; an unavailable route the submitted Work needs fails without publishing.
  const outcome = await publishSubmit(publisher, {
    requestId,
    actor: actorOf('producer', principalOf(g)),
    resolve: () => ({ graphId, nodes }),
    bootstrap: { repository: () => queueRepository(g) },
  });
  if (outcome.status === 'no_write') {
    // Every node is already admitted with exactly this definition: the existing records (spec 7.10, 7.15).
    if (outcome.code !== 'already_admitted') fail(outcome.code, outcome.message);
    const detail = outcome.detail as { work_ids: string[]; commits: string[] };
    if (g.json) {
      printJson(io, { ok: true, status: 'already_admitted', request_id: requestId, commit_id: null, admitted_commits: detail.commits, bootstrap: false, work_ids: [], existing_work_ids: detail.work_ids });
    } else {
      io.out(`already admitted: ${detail.work_ids.length} node(s), unchanged, in ${detail.commits.join(', ')}; nothing written (request ${requestId})`);
      for (const id of detail.work_ids.slice(0, 10)) io.out(`  ${id}`);
    }
    return;
  }
  const { commitId } = outcome;
  const workIds = outcome.projection.request(requestId)?.workIds ?? [];
  const all = nodes.map((n) => workId(n.graph_id ?? graphId, n.node_key));
  const existing = all.filter((id) => !workIds.includes(id));
  const result = {
    ok: true,
    status: outcome.status,
    request_id: requestId,
    commit_id: commitId,
    bootstrap: !outcome.replayed && outcome.bootstrap,
    work_ids: workIds,
    existing_work_ids: existing,
  };
  if (g.json) printJson(io, result);
  else {
    const existingNote = existing.length > 0 ? `; ${existing.length} already admitted unchanged` : '';
    io.out(`${outcome.replayed ? 'already committed' : outcome.bootstrap ? 'queue created and Work admitted' : 'Work admitted'}: ${workIds.length} node(s) in ${commitId}${existingNote} (request ${requestId})`);
    for (const id of workIds.slice(0, 10)) io.out(`  ${id}`);
    if (workIds.length > 10) io.out(`  ... ${workIds.length - 10} more`);
  }
}

/** submit-graph's node format, shown by `fairway submit-graph --help` (README has the same example). */
export const GRAPH_FORMAT_HELP = `
Node format (graph.json is a JSON array of 1-256 nodes, 1-255 when it creates the queue: that first
commit holds the Policy too; every field but node_key and payload is optional):
  node_key        stable key of the node within its graph (Work id = hash of graph_id and node_key)
  payload         the immutable Work payload: a JSON object, handed to the worker
  depends_on      up to 64 edges; the Work becomes ready when every edge is satisfied:
                    {"kind": "work", "node_key": K}          another node of the same graph
                    {"kind": "issue", "condition": "completed" | "closed", "resource": R}
                    {"kind": "pull_request", "condition": "merged", "resource": R}
                  R names the Issue/PR exactly: {"kind": "issue" | "pull_request", "host", "repository",
                  "repository_id", "resource_id", "number"} (ids are decimal strings, as the GitHub API gives them)
  priority        1 (most urgent) .. 5, default 3
  fairness_key    accounting key registered in the Policy, default ""
  pool            scheduling pool, default "default"; worker_profile: approved profile, default the pool's
  graph_id        overrides --graph-id for this node
  execution_ref   pin a registered immutable worker revision (40/64 hex); admission_contract: its SHA-256
  backing_issue   an existing Issue R (as above, kind "issue") to mirror this Work in instead of a new one;
                  admission requires an installed projector rule's exact backing_issues grant
                  (otherwise resource_unauthorized; docs/backing-issues.md)

Example graph.json (Work, Issue and pull-request dependencies):
  [
    {"node_key": "design", "payload": {"plan": "write the design"}, "priority": 2},
    {"node_key": "implement", "payload": {"plan": "implement it"},
     "depends_on": [
       {"kind": "work", "node_key": "design"},
       {"kind": "issue", "condition": "completed",
        "resource": {"kind": "issue", "host": "github.com", "repository": "octo-org/app",
                     "repository_id": "123456789", "resource_id": "2233445566", "number": "42"}}]},
    {"node_key": "release", "payload": {"plan": "tag the release"},
     "depends_on": [
       {"kind": "work", "node_key": "implement"},
       {"kind": "pull_request", "condition": "merged",
        "resource": {"kind": "pull_request", "host": "github.com", "repository": "octo-org/app",
                     "repository_id": "123456789", "resource_id": "3344556677", "number": "43"}}]}
  ]
Issue and pull-request dependencies must name a repository the pool's Policy allows
(allowed_repositories: the queue's own repository), or admission is resource_unauthorized; the
example is for the queue of octo-org/app.`;

export const registerSubmit: CommandModule = (program, ctx) => {
  program.command('submit-work')
    .description('Admit one immutable Work (default priority 3, fairness key ""). On an absent queue, create it with the Policy from .github/workflows/aw.json.')
    .requiredOption('--file <payload.json>', 'the Work payload: a JSON object (- reads stdin)')
    .option('--graph-id <id>', 'graph namespace (default: the pool\'s default graph, named after the pool)', identityArg('--graph-id'))
    .option('--node-key <key>', 'stable node key within the graph (default: derived from the request id)', identityArg('--node-key'))
    .option('--pool <name>', 'scheduling pool', 'default')
    .option('--priority <1..5>', 'priority class (1 most urgent)', priorityArg)
    .option('--fairness-key <key>', 'accounting key registered in the Policy')
    .option('--worker-profile <name>', 'approved worker profile (default: the pool\'s default)')
    .option('--execution-ref <sha>', 'pin execution to this registered immutable worker revision, a full 40/64-hex commit SHA (default: follow compatible deployments)', revisionArg('--execution-ref'))
    .action(ctx.action(async (g, opts: { file: string; graphId?: string; nodeKey?: string; pool: string; priority?: number; fairnessKey?: string; workerProfile?: string; executionRef?: string }) => {
      const payload = await readJson(opts.file, 'payload file');
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) fail('input_invalid', `payload file ${opts.file} must hold a JSON object`);
      // Without --node-key the node key is the request id, so a retry with --request-id is the same node.
      const requestId = requestIdOf(g, 'submit');
      const node: SubmitNode = {
        node_key: opts.nodeKey ?? requestId,
        payload: payload as JsonObject,
        pool: opts.pool,
        ...(opts.priority === undefined ? {} : { priority: opts.priority }),
        ...(opts.fairnessKey === undefined ? {} : { fairness_key: opts.fairnessKey }),
        ...(opts.workerProfile === undefined ? {} : { worker_profile: opts.workerProfile }),
        ...(opts.executionRef === undefined ? {} : { execution_ref: opts.executionRef }),
      };
      await submitNodes(ctx.io, g, parseNodes([node], opts.file), opts.graphId, requestId);
    }));

  program.command('submit-graph')
    .description('Atomically admit a graph of 1-256 nodes; forward references resolve, cycles are rejected with their path.')
    .requiredOption('--file <graph.json>', 'JSON array of nodes (format below; - reads stdin)')
    .addHelpText('after', GRAPH_FORMAT_HELP)
    .option('--graph-id <id>', 'graph id for nodes without graph_id (default: each node\'s pool\'s default graph, named after the pool)', identityArg('--graph-id'))
    .action(ctx.action(async (g, opts: { file: string; graphId?: string }) => {
      await submitNodes(ctx.io, g, parseNodes(await readJson(opts.file, 'graph file'), opts.file), opts.graphId);
    }));
};
