/**
 * Input schemas of the five MCP intent tools (spec 7.12 "Minimal MCP intent
 * surface"). They are closed: an unknown field is rejected with a stable code
 * that says what kind of authority the agent tried to take (a Work selector,
 * a filter, Policy, an actor/credential field, a trace override). The same
 * schemas validate tool calls in the MCP server and re-validate staged intent
 * files in the trusted processor, which never trusts the agent's copy.
 *
 * Every validation message starts with `<code>: ` so the MCP SDK's error text
 * (which carries only the message) still names a stable code.
 */
import { z } from 'zod';
import { ownRecord } from '../schema/record.ts';
import { fail } from '../errors.ts';
import { isDecimalId, isIdentity } from '../identity/index.ts';
import { isWireObject } from '../schema/common.ts';

export const TOOL_NAMES = [
  'work_queue_read',
  'work_queue_explain',
  'work_queue_submit',
  'work_queue_dispatch_next',
  'work_queue_claim_finish',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
/** Tools that stage an intent file (the others are read-only). */
export type StagingTool = 'work_queue_submit' | 'work_queue_dispatch_next' | 'work_queue_claim_finish';
export const STAGING_TOOLS: readonly StagingTool[] = ['work_queue_submit', 'work_queue_dispatch_next', 'work_queue_claim_finish'];

/** Contract bounds of a dispatch_next request (DispatchNextParameters.json). */
export const MAX_REQUEST_CLAIMS = 256;
export const MAX_REQUEST_DISPATCHES = 256;
/** Nodes per staged submit (spec 7.15 graph admission bound of the CLI). */
export const MAX_SUBMIT_NODES = 256;
/** Rows per read page. */
export const MAX_READ_LIMIT = 100;

const localeError = z.locales.en().localeError!;

function messageOf(issue: Parameters<typeof localeError>[0]): string {
  const m = localeError(issue);
  return typeof m === 'string' ? m : (m?.message ?? 'invalid input');
}

/** An error map whose messages start with `code: `. */
export function coded(code: string) {
  return (issue: Parameters<typeof localeError>[0]): string => `${code}: ${messageOf(issue)}`;
}

const invalid = coded('intent_invalid');
const scopeInvalid = coded('claim_scope_invalid');

// Field families an agent may never set (spec 7.9 "Explicit Work selection", 7.12, 7.13 "Trace trust").
const POLICY_FIELDS = new Set(['policy', 'policy_epoch', 'epoch', 'producers', 'accounting_weights', 'class_weights', 'mode', 'limits', 'weights']);
const AUTHORITY_FIELDS = new Set([
  'actor', 'role', 'principal', 'repository', 'run_id', 'run_attempt', 'dispatch_id', 'request_id', 'commit_id',
  'credential', 'credentials', 'token', 'authority', 'sender', 'workflow', 'intent_id', 'fingerprint', 'origin',
]);
const TRACE_FIELDS = new Set(['trace', 'trace_id', 'span_id', 'traceparent', 'publisher_attempt', 'otel_trace_id', 'otel_parent_span_id']);
const SELECTOR_FIELDS = new Set([
  'work_id', 'work_ids', 'claim_id', 'claim_ids', 'node_key', 'node_keys', 'target', 'winner', 'prefer', 'preferred_work',
  'select', 'selector', 'work', 'plan', 'payload', 'handle',
]);
const FILTER_FIELDS = new Set([
  'filter', 'filters', 'where', 'query', 'fairness_key', 'fairness_keys', 'priority', 'priorities', 'label', 'labels',
  'graph_id', 'worker_profile', 'profile', 'sort', 'state', 'tenant', 'account', 'max_bytes',
]);

/** The stable code for a field the agent may not pass (most severe family first). */
export function forbiddenFieldCode(keys: readonly string[]): string {
  const has = (family: Set<string>) => keys.some((k) => family.has(k));
  if (has(POLICY_FIELDS)) return 'policy_not_allowed';
  if (has(AUTHORITY_FIELDS)) return 'authority_not_allowed';
  if (has(TRACE_FIELDS)) return 'trace_not_allowed';
  if (has(SELECTOR_FIELDS)) return 'work_selector_not_allowed';
  if (has(FILTER_FIELDS)) return 'filter_not_allowed';
  return 'field_not_allowed';
}

/** Characters of an unknown member's name an error repeats (receipts are bounded, spec 7.13). */
const NAME_ECHO = 64;
/** Unknown members an error names; the rest are counted. */
const NAMES_ECHOED = 3;

/** An agent-chosen member name as an error repeats it: at most NAME_ECHO characters. */
export function echoedName(name: string): string {
  return name.length > NAME_ECHO ? `${name.slice(0, NAME_ECHO)}…` : name;
}

/** The unknown member names an error lists: a few, each bounded, the rest counted. */
export function echoedNames(keys: readonly string[]): string {
  const named = keys.slice(0, NAMES_ECHOED).map((k) => JSON.stringify(echoedName(k))).join(', ');
  return keys.length > NAMES_ECHOED ? `${named} and ${keys.length - NAMES_ECHOED} more` : named;
}

/** A closed object whose unknown keys get a forbidden-field code. */
function closed<S extends z.core.$ZodLooseShape>(what: string, shape: S) {
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') {
        const keys = issue.keys;
        return `${forbiddenFieldCode(keys)}: ${what} does not accept ${echoedNames(keys)}`;
      }
      return `intent_invalid: ${messageOf(issue)}`;
    },
  });
}

const identity = () =>
  z.string({ error: invalid }).refine(isIdentity, { error: 'intent_invalid: expected 1..256 UTF-8 bytes without control characters' });
const count = (max: number) => z.int({ error: invalid }).min(1, { error: invalid }).max(max, { error: invalid });
/** The optional Claim selector; membership is judged by the Claim-scope normalizer (spec 7.14). */
const claimHandle = () => z.string({ error: scopeInvalid }).optional().describe('Claim handle from your assignment; only a one-Claim assignment may omit it');

const WorkEdgeSchema = closed('a Work edge', {
  kind: z.literal('work', { error: invalid }),
  node_key: identity(),
});
const decimal = () =>
  z.string({ error: invalid }).refine(isDecimalId, { error: 'intent_invalid: expected a positive canonical decimal string of at most 256 digits' });
/** Resolved GitHub Issue/PR identity, as the Work record stores it (engine/schema/graph.ts ResourceSchema). */
const ResourceInputSchema = closed('an Issue/PR resource', {
  kind: z.enum(['issue', 'pull_request'], { error: invalid }),
  host: identity(),
  repository: identity(),
  repository_id: decimal(),
  resource_id: decimal(),
  number: decimal(),
});
const gateInvalid = coded('dependency_invalid');
/**
 * Spec 7.16: an Issue gate is `completed` or `closed` on an Issue, a pull-request gate `merged` on
 * a pull request. Any other pairing is a gate no trusted observation satisfies; the submit builder
 * and replay refuse it (`dependency_invalid`), so staging refuses it too.
 */
const sameKind = (edge: { kind: string; resource: { kind: string } }) => edge.resource.kind === edge.kind;
const gateKindError = { error: 'dependency_invalid: a gate\'s resource.kind must be its own kind', path: ['resource', 'kind'] };
const IssueEdgeSchema = closed('an Issue edge', {
  kind: z.literal('issue', { error: invalid }),
  condition: z.enum(['completed', 'closed'], { error: gateInvalid }),
  resource: ResourceInputSchema,
}).refine(sameKind, gateKindError);
const PullRequestEdgeSchema = closed('a pull-request edge', {
  kind: z.literal('pull_request', { error: invalid }),
  condition: z.literal('merged', { error: gateInvalid }),
  resource: ResourceInputSchema,
}).refine(sameKind, gateKindError);
const EdgeSchema = z.discriminatedUnion('kind', [WorkEdgeSchema, IssueEdgeSchema, PullRequestEdgeSchema], {
  error: 'intent_invalid: an edge\'s kind is work, issue or pull_request',
});

const PayloadSchema = ownRecord(z.string(), z.unknown(), { error: coded('payload_invalid') })
  .refine(isWireObject, { error: 'payload_invalid: the payload must be a JSON object of strings, booleans, null, safe integers, arrays and objects' });

export const SubmitNodeSchema = closed('a submitted node', {
  node_key: identity().optional().describe('stable deduplication key within the graph (default: derived from the intent)'),
  payload: PayloadSchema.describe('the immutable task description and plan stored on the Work'),
  depends_on: z.array(EdgeSchema, { error: invalid }).max(64, { error: invalid }).optional(),
  priority: z.int({ error: invalid }).min(1, { error: invalid }).max(5, { error: invalid }).optional().describe('1 (most urgent) .. 5; default 3, or the parent Claim\'s for a worker'),
  fairness_key: z.string({ error: invalid }).max(128, { error: invalid }).optional().describe('a key registered in the installed Policy'),
  pool: identity().optional(),
  worker_profile: identity().optional().describe('an approved worker profile of the pool'),
});
export type SubmitNodeInput = z.infer<typeof SubmitNodeSchema>;

const ReadInputSchema = closed('work_queue_read', {
  pool: identity().optional(),
  state: z.enum(['available', 'claimed', 'completed', 'cancelled'], { error: invalid }).optional(),
  graph_id: identity().optional(),
  sort: z.enum(['fifo', 'priority', 'recent'], { error: invalid }).optional().describe('display order only; never changes the prediction'),
  offset: z.int({ error: invalid }).min(0, { error: invalid }).max(1_000_000, { error: invalid }).optional(),
  limit: count(MAX_READ_LIMIT).optional(),
  line_limit: count(MAX_READ_LIMIT).optional().describe('entries of each pool\'s predicted line (default 10)'),
});
const ExplainInputSchema = closed('work_queue_explain', {
  pool: identity().optional(),
  work_id: identity().optional().describe('explain why this Work is (not) next'),
  claim_id: identity().optional().describe('reconstruct the grant of this Claim'),
});

const oneOfNodeOrNodes = (v: { node?: unknown; nodes?: unknown }) => (v.node === undefined) !== (v.nodes === undefined);

/**
 * The staging tools' schemas, built from one shape each plus a Claim scope: `{claim_handle}` for
 * the schemas that parse every call and staged file (a worker's), `{}` for the schemas an
 * unassigned role's tool list advertises (it holds no Claim, so the field could only fail). The
 * refinement is added after the scope, so both variants carry it.
 */
function stagingInputs<S extends z.core.$ZodLooseShape>(scope: S) {
  return {
    work_queue_submit: closed('work_queue_submit', {
      node: SubmitNodeSchema.optional().describe('one node (or use nodes)'),
      nodes: z.array(SubmitNodeSchema, { error: invalid }).min(1, { error: invalid }).max(MAX_SUBMIT_NODES, { error: invalid }).optional(),
      graph_id: identity().optional(),
      ...scope,
    }).refine(oneOfNodeOrNodes, { error: 'intent_invalid: give exactly one of node or nodes' }),
    work_queue_dispatch_next: closed('work_queue_dispatch_next', {
      pool: identity().describe('the scheduling pool; the scheduler selects the Work'),
      max_claims: count(MAX_REQUEST_CLAIMS).default(1),
      max_dispatches: count(MAX_REQUEST_DISPATCHES).default(1),
      ...scope,
    }),
    work_queue_claim_finish: closed('work_queue_claim_finish', {
      ...scope,
      outcome: z.enum(['completed', 'cancelled'], { error: invalid }),
    }),
  };
}

/**
 * The schemas every tool call and staged file is parsed with, whatever the role: a `claim_handle`
 * from an unassigned role parses, so the role check answers its specific `claim_scope_invalid`.
 */
export const TOOL_INPUTS = {
  work_queue_read: ReadInputSchema,
  work_queue_explain: ExplainInputSchema,
  ...stagingInputs({ claim_handle: claimHandle() }),
} as const;

/** The schemas an unassigned role's tool list advertises: TOOL_INPUTS without `claim_handle`. */
export const UNSCOPED_TOOL_INPUTS = {
  work_queue_read: ReadInputSchema,
  work_queue_explain: ExplainInputSchema,
  ...stagingInputs({}),
} as const;

export type ToolInput<T extends ToolName> = z.infer<(typeof TOOL_INPUTS)[T]>;
export type SubmitInput = ToolInput<'work_queue_submit'>;
export type DispatchInput = ToolInput<'work_queue_dispatch_next'>;
export type FinishInput = ToolInput<'work_queue_claim_finish'>;
export type ReadInput = ToolInput<'work_queue_read'>;
export type ExplainInput = ToolInput<'work_queue_explain'>;

/** Splits a `code: message` validation message (unprefixed messages are `intent_invalid`). */
export function splitCoded(message: string): { code: string; message: string } {
  const m = /^([a-z][a-z0-9_]*): ([\s\S]*)$/.exec(message);
  return m ? { code: m[1]!, message: m[2]! } : { code: 'intent_invalid', message };
}

/** Parses a tool input (tool calls and staged files alike); throws a coded `ProtocolError`. */
export function parseToolInput<T extends ToolName>(tool: T, value: unknown): ToolInput<T> {
  const parsed = TOOL_INPUTS[tool].safeParse(value ?? {});
  if (parsed.success) return parsed.data as ToolInput<T>;
  const issue = parsed.error.issues[0]!;
  const { code, message } = splitCoded(issue.message);
  // An unknown member's path names it (when it is the only one), as a bad value's names the value.
  const at = issue.code === 'unrecognized_keys' && issue.keys.length === 1 ? [...issue.path, echoedName(issue.keys[0]!)] : issue.path;
  const path = at.map(String).join('.');
  return fail(code, `${tool}: ${path ? `${path}: ` : ''}${message}`, path ? { path } : {});
}

