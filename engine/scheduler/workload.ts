/**
 * The workload of `fairway simulate` (design/INTERFACES.md): a closed zod schema with its error
 * map. Every problem is `workload_invalid` naming the property's path (`workload.nodes[0].priority`,
 * `workload.events[2]`); the first problem in document order is reported (engine/schema/issues.ts).
 *
 * `nodes` are admitted in order before the first grant; each event fires when the grant count
 * reaches `after_grants` and does exactly one thing: admit more Work, pause a key or resume it.
 */
import { z } from 'zod';
import { utf8ByteLength } from '../codec/index.ts';
import { fail } from '../errors.ts';
import { firstIssue } from '../schema/issues.ts';

export const MAX_SIMULATED_GRANTS = 1_000_000;
/** Bound on nodes + events (the workload file, not the backlog it describes). */
export const MAX_WORKLOAD_ENTRIES = 100_000;
const MAX_KEY_BYTES = 128;

/** A closed object: a missing property "is required", an unknown one lists the allowed ones. */
function closed<S extends z.core.$ZodLooseShape>(shape: S) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown property (allowed: ${allowed})` : 'expected an object'),
  });
}

const required = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message);

function integer(min: number, max: number) {
  const message = required(`must be an integer in ${min}..${max}`);
  return z.int({ error: message }).min(min, { error: message }).max(max, { error: message });
}

const FairnessKey = z.string({ error: required('must be a string (fairness key)') })
  .refine((key) => utf8ByteLength(key) <= MAX_KEY_BYTES, { error: `a fairness key is at most ${MAX_KEY_BYTES} UTF-8 bytes` });

const WorkloadNodeSchema = closed({
  key: FairnessKey,
  priority: integer(1, 5),
  count: integer(0, Number.MAX_SAFE_INTEGER),
});

const ACTIONS = ['admit', 'pause_key', 'resume_key'] as const;

/** `after_grants`, then exactly one action (before the action's own value is read). */
const WorkloadEventSchema = closed({
  after_grants: integer(0, MAX_SIMULATED_GRANTS),
  admit: z.unknown().optional(),
  pause_key: z.unknown().optional(),
  resume_key: z.unknown().optional(),
}).check((ctx) => {
  if (ACTIONS.filter((a) => ctx.value[a] !== undefined).length !== 1) {
    ctx.issues.push({ code: 'custom', input: ctx.value, message: `needs exactly one of ${ACTIONS.join(', ')}` });
  }
}).pipe(z.object({
  after_grants: z.number(),
  admit: WorkloadNodeSchema.optional(),
  pause_key: FairnessKey.optional(),
  resume_key: FairnessKey.optional(),
}));

const list = z.array(z.unknown(), { error: 'must be an array' });

/** The file's size first (before any entry is read), then every node and event. */
const WorkloadSchema = closed({ nodes: list, events: list.optional() })
  .check((ctx) => {
    if (ctx.value.nodes.length + (ctx.value.events?.length ?? 0) > MAX_WORKLOAD_ENTRIES) {
      ctx.issues.push({ code: 'custom', input: ctx.value, message: `at most ${MAX_WORKLOAD_ENTRIES} nodes and events` });
    }
  })
  .pipe(z.object({ nodes: z.array(WorkloadNodeSchema), events: z.array(WorkloadEventSchema).default([]) }));

export type WorkloadNode = z.output<typeof WorkloadNodeSchema>;

export type WorkloadEvent =
  | { after_grants: number; admit: WorkloadNode }
  | { after_grants: number; pause_key: string }
  | { after_grants: number; resume_key: string };

export interface Workload {
  nodes: WorkloadNode[];
  events?: WorkloadEvent[];
}

/** Validates a parsed workload file (closed objects; `workload_invalid` with a path). */
export function parseWorkload(value: unknown): Required<Workload> {
  const parsed = WorkloadSchema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data as Required<Workload>;
  const issue = firstIssue(parsed.error.issues);
  const segments = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const path = segments.reduce<string>((at, s) => (typeof s === 'number' ? `${at}[${s}]` : `${at}.${String(s)}`), 'workload');
  return fail('workload_invalid', `${path}: ${issue.message}`, { path });
}
