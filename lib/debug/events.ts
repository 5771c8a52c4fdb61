/**
 * The catalogue of debug events (operator reference, "Runtime debug logging"): every event
 * of every `work-queue:<namespace>` is declared here with the type of each metadata field.
 *
 * A field is a number (`count`, `bytes`, `ms`, `delay_ms`, an HTTP `status`), a flag, or one
 * of a closed list of literal strings. There is no free-text field kind, so a payload, an id,
 * a repository name, a path, a URL, a token, a raw response or an error message has no way
 * into a debug line: the emitter (log.ts) prints only the fields declared here and only
 * values of the declared kind (a string outside its list prints as `?`).
 */

/** How one metadata field is typed: a number, a boolean, or one of the listed strings. */
export type FieldKind = 'number' | 'flag' | readonly string[];

const CAS = ['committed', 'conflict', 'uncertain'] as const;
const GIT_COMMANDS = ['cat-file', 'commit-tree', 'fetch', 'for-each-ref', 'hash-object', 'ls-remote', 'ls-tree', 'mktree', 'push', 'remote', 'rev-parse', 'symbolic-ref', 'update-ref', 'other'] as const;
const METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE', 'other'] as const;
const PUBLISH_OUTCOMES = ['committed', 'request_replayed', 'no_write'] as const;
const PACK_STOPS = [
  'claim_budget_reached', 'operation_budget_reached', 'operation_budget_blocked', 'prefix_complete', 'dispatch_budget_blocked',
  'native_capacity_blocked', 'assignment_bytes_blocked', 'grants_paused', 'capacity_blocked', 'no_work', 'no_eligible_work',
] as const;
const DISPATCH_STATES = ['reserved', 'started', 'bound', 'uncertain', 'unresolved', 'rejected', 'released'] as const;
const TRANSITIONS = ['committed', 'replayed', 'skipped'] as const;
const POSTS = ['accepted', 'rejected', 'uncertain'] as const;
const LAUNCHES = ['bound', 'uncertain', 'rejected', 'marker_exists', 'grants_paused', 'run_binding_conflict'] as const;
const RECONCILES = ['released', 'already_released', 'running', 'reserved', 'launch_unresolved', 'run_binding_conflict', 'run_identity_invalid', 'evidence_unavailable'] as const;
const DELIVERIES = ['result', 'delivery_failure', 'pending', 'already_verified', 'already_failed', 'result_conflict'] as const;
const INTENT_KINDS = ['submit', 'dispatch_next', 'claim_finish', 'other'] as const;
const INTENT_STATUSES = ['committed', 'replayed', 'already_admitted', 'no_grant', 'rejected', 'suppressed'] as const;
const MCP_TOOLS = ['work_queue_read', 'work_queue_explain', 'work_queue_submit', 'work_queue_dispatch_next', 'work_queue_claim_finish', 'other'] as const;
const ROLES = ['observer', 'producer', 'dispatcher', 'worker', 'other'] as const;
const ADMIN = ['control', 'cancel-claim', 'cancel-work', 'reprioritize', 'policy', 'other'] as const;
const DISCARDS = ['conflict', 'uncertain', 'invalid', 'write_failed'] as const;

export const EVENTS = {
  store: {
    /** One read of the queue branch. */
    read: { found: 'flag', bytes: 'number', ms: 'number' },
    /** One compare-and-swap publication attempt and its outcome. */
    cas: { outcome: CAS, bytes: 'number', ms: 'number' },
    /** One git plumbing command (local and remote Git stores). */
    git: { command: GIT_COMMANDS, exit: 'number', ms: 'number' },
    /** One GitHub API request (status 0: no answer). */
    http: { method: METHODS, status: 'number', write: 'flag', timed_out: 'flag', ms: 'number' },
    /** A GitHub rate limit: retried after `delay_ms` or given up. */
    rate_limit: { secondary: 'flag', attempt: 'number', delay_ms: 'number', retrying: 'flag' },
    /** Octokit reported a warning or error (its text is not logged). */
    client_notice: { level: ['warn', 'error'] },
    /** A publication attempt of one request through the checked publisher. */
    attempt: { attempt: 'number', bootstrap: 'flag' },
    /** A publication attempt lost a race (conflict) or has an unknown outcome (uncertain); retried after `delay_ms`. */
    retry: { attempt: 'number', reason: ['conflict', 'uncertain'], delay_ms: 'number' },
    /** A publication waits `delay_ms` before its first attempt: this publisher lost races lately (lib/publisher/backoff.ts). */
    pace: { delay_ms: 'number' },
    /** An uncertain write resolved by reading back the request id (recovery). */
    recovered: { attempt: 'number', committed: 'flag', replayed: 'flag' },
    /** The publication's final outcome. */
    published: { outcome: PUBLISH_OUTCOMES, attempts: 'number', operations: 'number' },
  },
  replay: {
    /** A cold replay of the whole ledger; with worker threads (lib/replay/thread-verifier.ts), how many and the records they checked ahead. */
    cold: { bytes: 'number', commits: 'number', ms: 'number', threads: 'number', checked_ahead: 'number' },
    /** A replay worker thread failed or exited: cold replays check every record on their own thread from now on. */
    threads_stopped: { threads: 'number' },
    /** An incremental replay of bytes that extend a validated prefix. */
    incremental: { bytes: 'number', appended_bytes: 'number', commits: 'number', ms: 'number' },
    /** A candidate commit validated by applying it before its compare-and-swap. */
    candidate: { bytes: 'number', valid: 'flag' },
    /** Replay refused the ledger (the verdict itself is the command's error). */
    rejected: { bytes: 'number', protocol: 'flag' },
  },
  memory: {
    /** The in-memory projection answered without reading the ledger bytes again. */
    hit: { commits: 'number' },
    /** The in-memory projection was reused as the prefix of new bytes (or rebuilt when not). */
    refresh: { reused: 'flag', cached: 'flag' },
    /** A committed candidate became the cached projection without a read. */
    confirm: { commits: 'number' },
    /**
     * A candidate's tentative projection was dropped (conflict, uncertain, invalid, write failed);
     * `kept`: the validated projection stays cached, so the next read appends only the new tail.
     */
    discard: { reason: DISCARDS, kept: 'flag' },
  },
  scheduler: {
    /** One dispatch_next packing pass and why it stopped (capacity and packing limits). */
    pack: { claims: 'number', groups: 'number', bytes: 'number', stop: PACK_STOPS, granted: 'flag' },
  },
  dispatch: {
    /** A dispatch_next request's outcome: Claims granted in how many dispatch groups (or no grant). */
    grant: { outcome: PUBLISH_OUTCOMES, claims: 'number', groups: 'number' },
    /** A dispatch group lifecycle transition (start marker, binding, Release, ...). */
    transition: { state: DISPATCH_STATES, status: TRANSITIONS },
  },
  native: {
    /** The one workflow_dispatch POST of a group. */
    post: { outcome: POSTS, status: 'number', ms: 'number' },
    /** The launch of one group, through to its verified binding. */
    launch: { outcome: LAUNCHES, status: 'number', commits: 'number' },
    /** Worker activation: this run's binding checked from its own job context. */
    binding: { bound_now: 'flag', claims: 'number' },
    /** One read of a native run (status, attempt) by id. */
    run_read: { status: 'number', completed: 'flag' },
    /** Run discovery by the dispatch token in the run name. */
    discovery: { runs: 'number', pages: 'number' },
  },
  reconciler: {
    /** One reconciled group. */
    group: { outcome: RECONCILES, commits: 'number', polls: 'number' },
    /** One reconciliation pass. */
    pass: { groups: 'number', released: 'number' },
  },
  claims: {
    /** A worker finish of one original member. */
    finish: { completed: 'flag', status: [...TRANSITIONS, 'request_replayed', 'no_write'] },
    /** An operator's cancel_work revoking current Claims (built against one projection). */
    cancel: { claims: 'number' },
  },
  delivery: {
    /** Delivery barrier settlement of one completed Claim (durable Result or DeliveryFailure). */
    settle: { outcome: DELIVERIES, verified: 'flag', terminal: 'flag', committed: 'flag' },
  },
  effects: {
    /** Independent verification of a Claim's effect receipts against its Work's effect contract. */
    verify: { verified: 'flag', outputs: 'number', receipts: 'flag' },
    /** The per-Claim effect gate for one staged worker effect. */
    gate: { authorized: 'flag' },
  },
  intents: {
    /** One staged intent processed by the trusted step. */
    intent: { kind: INTENT_KINDS, status: INTENT_STATUSES },
    /** One activation's staged intents, processed. */
    processed: { intents: 'number', committed: 'number', replayed: 'number', already_admitted: 'number', no_grant: 'number', rejected: 'number', suppressed: 'number' },
    /** An activation snapshot captured. */
    snapshot: { role: ROLES, bytes: 'number', work: 'number' },
  },
  mcp: {
    /** One MCP tool call. */
    tool: { tool: MCP_TOOLS, ok: 'flag', ms: 'number' },
    /** The intent server started over a snapshot. */
    serve: { role: ROLES, tools: 'number' },
  },
  console: {
    /** One administrator action of the console. */
    admin: { action: ADMIN, status: 'number', ms: 'number' },
  },
} as const satisfies Record<string, Record<string, Record<string, FieldKind>>>;

export type Catalogue = typeof EVENTS;
export type Namespace = keyof Catalogue;
export type EventName<N extends Namespace> = keyof Catalogue[N] & string;

type ValueOf<K> = K extends 'number' ? number : K extends 'flag' ? boolean : K extends readonly (infer E)[] ? E : never;

/** The metadata an event accepts: only its declared fields, each of its declared kind. */
export type EventMeta<N extends Namespace, E extends EventName<N>> = {
  readonly [F in keyof Catalogue[N][E]]?: ValueOf<Catalogue[N][E][F]>;
};

/** The twelve namespaces of the operator reference, plus the console's. */
export const NAMESPACES = Object.keys(EVENTS) as Namespace[];
