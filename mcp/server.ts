/**
 * The agent-side MCP intent server (spec 7.12 "Minimal MCP intent surface";
 * design/INTERFACES.md "MCP tools"). It reads one immutable activation
 * snapshot and writes only staged-intent files into its intents directory. It
 * holds no queue credentials, reads no environment tokens and never publishes
 * a QueueCommit: trusted processing (`fairway process-intents`) does that.
 *
 * Only the activation role's tools are listed (engine/intents/roles.ts; spec 7.12 "Read-only
 * observers expose read/explain only"). A call to a name that is no intent tool is the MCP
 * protocol's own error (-32602); a call to an intent tool this role does not list is a tool
 * error `role_not_allowed`, as a staged file for one is at processing.
 *
 * Tool results are JSON (`structuredContent` and the same JSON as text). Every failure of an
 * intent tool, its arguments' validation included, is a tool error (MCP SEP-1303: the model sees
 * it and can correct its call) whose text starts with a stable `code: ` and whose structured
 * content is `{"ok": false, "error": {"code", "message", "path"?}}`. The SDK's own argument
 * check would answer a bare `-32602` text with no code, so calls are answered here: the
 * handler parses the arguments with the same closed schemas the tool list advertises. Only a
 * worker's list advertises `claim_handle` (engine/intents/roles.ts advertisedInput): another
 * role holds no Claim, and the handler still parses one it sends to refuse it by its code.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { internalError, isProtocolError } from '../engine/errors.ts';
import { advertisedInput, checkRoleAllows, toolsFor } from '../engine/intents/roles.ts';
import { TOOL_NAMES, parseToolInput, type StagingTool, type ToolName } from '../engine/intents/schemas.ts';
import type { LoadedSnapshot } from '../lib/intents/snapshot.ts';
import type { IntentStore } from '../lib/intents/store.ts';
import { stageIntent } from './stage.ts';
import { explainView, readView } from './views.ts';
import type { EventMeta } from '../lib/debug/events.ts';
import { debugEvent, since } from '../lib/debug/log.ts';

export const SERVER_NAME = 'fairway-work-queue';
export const SERVER_VERSION = '0.1.0';

export interface IntentServerOptions {
  loaded: LoadedSnapshot;
  intents: IntentStore;
  /** Staging clock (default Date.now). */
  now?: () => number;
}

const DESCRIPTIONS: Record<ToolName, { title: string; description: string }> = {
  work_queue_read: {
    title: 'Read the work queue snapshot',
    description: 'Bounded Work list (metadata only), counts, policy, the operating envelope (ledger bytes, watermark, remaining admission budget, reserve owed), your assignment (workers), staged intents, and a per-pool prediction labelled activation_snapshot: the next pick and the predicted line (grant order of the ready backlog from the live fairness clocks, the same function as `fairway next`; line_limit entries, default 10). Non-authoritative and possibly stale; sort changes only the display order.',
  },
  work_queue_explain: {
    title: 'Explain a scheduling decision',
    description: 'The scheduler\'s own explanation (planNext) from the snapshot: the next winner of a pool, why a Work is or is not next (eligibility and blocking path), or how a Claim was granted. For a Work, line_position says where it stands in the predicted line (position, grants ahead, the Work before it, an estimate from the recent grant rate).',
  },
  work_queue_submit: {
    title: 'Stage Work',
    description: 'Stage one node ({"node": {...}}) or a bounded graph ({"nodes": [...]}) with an immutable payload/plan. Trusted processing admits it later. A plan that would take the ledger past its admission watermark is refused now with ledger_limit (see envelope.admission_remaining in work_queue_read).',
  },
  work_queue_dispatch_next: {
    title: 'Stage a dispatch request',
    description: 'Stage {pool, max_claims, max_dispatches}. The scheduler selects the Work at publication; no Work selector, filter, authority or trace field is accepted. Returns a staged intent, never a Claim.',
  },
  work_queue_claim_finish: {
    title: 'Stage a Claim finish',
    description: 'Stage {claim_handle?, outcome: "completed" | "cancelled"} for one Claim of your assignment. Only a one-Claim assignment may omit claim_handle. Staging is not durable completion.',
  },
};

/** What a worker's submit description adds (only its schema carries claim_handle). */
const WORKER_SUBMIT_NOTE = ' Workers inherit their Claim\'s pool, priority and fairness key and must name claim_handle when they hold several Claims.';

/** A tool's title and description as `role`'s list shows them. */
function describedFor(role: string, tool: ToolName): { title: string; description: string } {
  const d = DESCRIPTIONS[tool];
  return role === 'worker' && tool === 'work_queue_submit' ? { ...d, description: d.description + WORKER_SUBMIT_NOTE } : d;
}

function ok(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

function failure(e: unknown): CallToolResult {
  const error = isProtocolError(e)
    ? { code: e.code, message: e.message, ...(e.path === undefined ? {} : { path: e.path }) }
    : internalError(e);
  return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }], structuredContent: { ok: false, error } };
}

export function createIntentServer(o: IntentServerOptions): McpServer {
  const now = o.now ?? Date.now;
  const role = o.loaded.snapshot.role;
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      instructions: `Work-queue intent tools for a ${role} activation (available to you: ${toolsFor(role).join(', ')}). `
        + 'Reads come from an immutable snapshot; mutations are only staged and are decided later by trusted processing.',
    },
  );
  const handle = (tool: ToolName, gate?: () => void) => async (args: unknown): Promise<CallToolResult> => {
    const started = Date.now();
    const result = await answer(tool, args, gate);
    debugEvent('mcp', 'tool', { tool: tool as EventMeta<'mcp', 'tool'>['tool'], ok: result.isError !== true, ms: since(started) });
    return result;
  };
  const answer = async (tool: ToolName, args: unknown, gate?: () => void): Promise<CallToolResult> => {
    try {
      gate?.();
      if (tool === 'work_queue_read') {
        const input = parseToolInput(tool, args);
        const { records } = await o.intents.list();
        return ok(readView(o.loaded, input, records.filter((r) => r.snapshot_id === o.loaded.snapshot.snapshot_id)));
      }
      if (tool === 'work_queue_explain') return ok(explainView(o.loaded, parseToolInput(tool, args)));
      return ok({ ...(await stageIntent(o.loaded, o.intents, tool as StagingTool, args, now())) });
    } catch (e) {
      return failure(e);
    }
  };
  // Only the role's tools are listed (spec 7.12: "Read-only observers expose read/explain only");
  // trusted processing still refuses any other tool's intent file written behind the server's back.
  for (const tool of toolsFor(role)) {
    const readOnly = tool === 'work_queue_read' || tool === 'work_queue_explain';
    server.registerTool(
      tool,
      {
        ...describedFor(role, tool),
        inputSchema: advertisedInput(role, tool),
        annotations: { readOnlyHint: readOnly, destructiveHint: false, idempotentHint: readOnly, openWorldHint: false },
      },
      handle(tool),
    );
  }
  // Answer calls here (see the header): the tool list above stays the SDK's, with the schemas.
  const listed = new Set<string>(toolsFor(role));
  server.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const name = request.params.name;
    if (!(TOOL_NAMES as readonly string[]).includes(name)) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
    const tool = name as ToolName;
    // Not listed for this role: say so before anything about its arguments.
    if (!listed.has(tool)) return handle(tool, () => checkRoleAllows(role, tool))(request.params.arguments);
    return handle(tool)(request.params.arguments);
  });
  debugEvent('mcp', 'serve', { role: role as EventMeta<'mcp', 'serve'>['role'], tools: toolsFor(role).length });
  return server;
}
