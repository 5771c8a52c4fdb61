/**
 * Worker routes from the repository (spec 7.1 "the native publisher resolves scheduling
 * from .github/workflows/aw.json and declared AW worker routes at the verified repository
 * revision"; 7.10). A worker is a workflow file that declares the `work_queue_assignment`
 * `workflow_dispatch` input (7.14: "The compiler-managed input is work_queue_assignment").
 *
 * Where workers are declared (README "Worker routes"):
 * - `.github/work-queue-workers.json` when present: `{ "workers": { NAME: { workflow, principal?,
 *   trust_domain?, credential_scope?, effect_scope?, max_claims?, share_keys? } }, "default"?: NAME }`,
 *   a closed schema. aw.json's `work_queue` may hold only scheduling (spec 7.1), so workers never go there.
 * - otherwise, every `.github/workflows/*.lock.yml` (gh-aw compiled) or other `*.yml`/`*.yaml` that
 *   declares the input; one such workflow is profile `default`, several are named after their file.
 *
 * Each route is verified at one immutable commit: the declared workflow must exist there and
 * declare the input. A missing or invalid source makes only that worker unavailable (listed
 * in `unavailable`, never installed with a placeholder ref). I/O errors of the source (permission,
 * rate limit, transport) propagate.
 */
import { z } from 'zod';
import { ProtocolError } from '../../engine/errors.ts';
import { isIdentity } from '../../engine/identity/validate.ts';
import type { WorkerProfile } from '../../engine/schema/index.ts';
import { ownRecord } from '../../engine/schema/record.ts';
import type { RepositoryRevision } from '../store/types.ts';

export const WORKERS_FILE = '.github/work-queue-workers.json';
export const ASSIGNMENT_INPUT = 'work_queue_assignment';
export const WORKFLOWS_DIR = '.github/workflows';

/** The repository at one verified immutable revision (a store's `defaultRevision()`). */
export type RevisionSource = RepositoryRevision;

export interface WorkerRoutes {
  ref: string;
  /** Verified profiles, in declaration order (the first is the default unless `default` names one). */
  profiles: Record<string, WorkerProfile>;
  defaultProfile: string | undefined;
  /** Declared workers whose source is missing or invalid at `ref`: name → reason code. */
  unavailable: Record<string, 'workflow_missing' | 'workflow_not_a_worker'>;
}

/**
 * A declared worker's workflow: a file directly under .github/workflows (the workflow_dispatch POST
 * names its file name). The workers file's own syntax; a Policy profile's workflow is checked by
 * engine/replay/ops/profile-workflows.ts on every path that installs one.
 */
const WorkflowPath = z.string().regex(/^\.github\/workflows\/[A-Za-z0-9._-]+\.ya?ml$/, 'expected a file directly under .github/workflows ending in .yml or .yaml');
const Decimal = z.string().regex(/^[1-9][0-9]{0,19}$/, 'expected a positive decimal GitHub actor id');
const Name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'expected 1-64 letters, digits, . _ -');
const Identity = z.string().refine(isIdentity, 'expected 1-256 UTF-8 bytes without control characters');

const WorkerDeclarationSchema = z.strictObject({
  workflow: WorkflowPath,
  principal: Decimal.optional(),
  trust_domain: Identity.optional(),
  credential_scope: Identity.optional(),
  effect_scope: Identity.optional(),
  max_claims: z.int().min(1).max(256).optional(),
  share_keys: z.boolean().optional(),
});

const WorkersFileSchema = z.strictObject({
  workers: ownRecord(Name, WorkerDeclarationSchema).refine((w) => Object.keys(w).length >= 1 && Object.keys(w).length <= 64, 'declare 1 to 64 workers'),
  default: Name.optional(),
});

export type WorkerDeclaration = z.infer<typeof WorkerDeclarationSchema>;

function invalid(path: string, message: string): never {
  throw new ProtocolError('workers_invalid', `${path}: ${message}`, { path });
}

/** Parses and validates the workers file (closed schema, property-specific `workers_invalid`). */
export function parseWorkersFile(bytes: Uint8Array): { workers: Record<string, WorkerDeclaration>; default?: string } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return invalid(WORKERS_FILE, 'not valid UTF-8');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return invalid(WORKERS_FILE, `not valid JSON: ${(e as Error).message}`);
  }
  const parsed = WorkersFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.map(String).join('.');
    const extra = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
    invalid(where === '' ? WORKERS_FILE : `${WORKERS_FILE}:${where}`, `${issue.message}${extra}`);
  }
  const data = parsed.data;
  if (data.default !== undefined && !Object.hasOwn(data.workers, data.default)) invalid(`${WORKERS_FILE}:default`, `names no declared worker (${Object.keys(data.workers).join(', ')})`);
  return data;
}

// ------------------------------------------------------------------ minimal YAML reader

/**
 * The input names of `on.workflow_dispatch.inputs` in a workflow file. A deliberately small
 * reader of block-style YAML mappings (no YAML package is installed): it follows indentation
 * of `key:` lines, accepts plain, single- or double-quoted keys (gh-aw writes `"on":`), skips
 * comments, blank lines and block-scalar bodies. Flow-style mappings (`inputs: {a: ...}`) and
 * anchors are not understood and yield no inputs (the worker is then reported unavailable).
 */
export function workflowDispatchInputs(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const entries: { indent: number; key: string; rest: string }[] = [];
  let blockIndent = -1;
  for (const line of lines) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    const indent = line.length - line.trimStart().length;
    if (blockIndent >= 0) {
      if (indent > blockIndent) continue;
      blockIndent = -1;
    }
    const trimmed = line.trimStart();
    if (trimmed.startsWith('- ') || trimmed === '-' || trimmed === '---') {
      entries.push({ indent, key: '', rest: trimmed });
      continue;
    }
    const m = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s"'#:][^:#]*?))\s*:(?:\s+(.*))?$/.exec(trimmed);
    if (m === null) {
      entries.push({ indent, key: '', rest: trimmed });
      continue;
    }
    const key = m[1] ?? (m[2] !== undefined ? m[2].replace(/''/g, "'") : m[3]!);
    const rest = (m[4] ?? '').replace(/\s+#.*$/, '').trim();
    entries.push({ indent, key, rest });
    if (/^[|>][-+0-9]*$/.test(rest)) blockIndent = indent;
  }
  /** Child mapping keys of the entry at index i (null when the value is not a block mapping). */
  const children = (i: number): number[] => {
    const parent = entries[i]!;
    if (parent.rest !== '') return [];
    const out: number[] = [];
    let childIndent = -1;
    for (let j = i + 1; j < entries.length; j++) {
      const e = entries[j]!;
      if (e.indent <= parent.indent) break;
      if (childIndent < 0) childIndent = e.indent;
      if (e.indent === childIndent && e.key !== '') out.push(j);
    }
    return out;
  };
  const top = entries.map((e, i) => ({ e, i })).filter(({ e }) => e.indent === entries[0]?.indent && e.key !== '');
  const on = top.find(({ e }) => e.key === 'on' || e.key === 'true');
  if (on === undefined) return [];
  const dispatch = children(on.i).find((j) => entries[j]!.key === 'workflow_dispatch');
  if (dispatch === undefined) return [];
  const inputs = children(dispatch).find((j) => entries[j]!.key === 'inputs');
  if (inputs === undefined) return [];
  return children(inputs).map((j) => entries[j]!.key);
}

/**
 * A workflow file at one revision, read and parsed once: whether it is a worker (present and
 * declaring the input) and the `workflow_dispatch` input names it declares, the worker's
 * verifiable interface (engine/lifecycle/deploy.ts `interfaceContract`): null when it is absent,
 * not a file or not UTF-8. I/O errors propagate.
 */
export interface WorkflowSource {
  status: 'available' | 'workflow_missing' | 'workflow_not_a_worker';
  inputs: string[] | null;
}

export async function readWorkflow(source: RevisionSource, workflow: string): Promise<WorkflowSource> {
  let bytes: Uint8Array | null;
  try {
    bytes = await source.readFile(workflow);
  } catch (e) {
    // A directory or submodule where the workflow should be is a missing worker source, not an I/O failure.
    if (e instanceof ProtocolError && e.code === 'store_path_not_a_file') return { status: 'workflow_missing', inputs: null };
    throw e;
  }
  if (bytes === null) return { status: 'workflow_missing', inputs: null };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { status: 'workflow_not_a_worker', inputs: null };
  }
  const inputs = workflowDispatchInputs(text);
  return { status: inputs.includes(ASSIGNMENT_INPUT) ? 'available' : 'workflow_not_a_worker', inputs };
}

/** Is `workflow` at the source's revision a worker (present and declaring the input)? */
export async function verifyWorkerWorkflow(source: RevisionSource, workflow: string): Promise<WorkflowSource['status']> {
  return (await readWorkflow(source, workflow)).status;
}

export type WorkersFile = ReturnType<typeof parseWorkersFile>;

/** The revision's worker source declaration (WORKERS_FILE), parsed; null when it is absent. An invalid file is `workers_invalid`. */
export async function readWorkersFile(source: RevisionSource): Promise<WorkersFile | null> {
  const file = await source.readFile(WORKERS_FILE);
  return file === null ? null : parseWorkersFile(file);
}

/**
 * Whether the revision's worker source declaration `file` still declares worker `name` with
 * `workflow` (operator reference "Worker evolution": "Availability comes from that revision's
 * worker source declaration, compiled assignment input and literal contract stamp"). With
 * WORKERS_FILE present it replaces discovery, so only a declaration of `name` naming that same
 * workflow counts: a removed declaration, or one moved to another workflow (an authority change
 * no Deployment can make), is `worker_undeclared`. Without the file (null), discovery declares
 * every workflow that declares the input (`readWorkflow` decides).
 */
export function declares(file: WorkersFile | null, name: string, workflow: string): 'declared' | 'worker_undeclared' {
  if (file === null) return 'declared';
  return Object.hasOwn(file.workers, name) && file.workers[name]!.workflow === workflow ? 'declared' : 'worker_undeclared';
}

export interface RouteContext {
  /** Queue repository `owner/name`: default effect scope. */
  repository: string;
  /** Approved worker principal when a declaration names none. */
  principal: string;
}

function profileOf(d: WorkerDeclaration, ref: string, ctx: RouteContext): WorkerProfile {
  return {
    credential_scope: d.credential_scope ?? 'repository',
    effect_scope: d.effect_scope ?? ctx.repository,
    max_claims: d.max_claims ?? 1,
    principal: d.principal ?? ctx.principal,
    ref,
    share_keys: d.share_keys ?? false,
    trust_domain: d.trust_domain ?? 'default',
    workflow: d.workflow,
  };
}

/** gh-aw's compiled `X.lock.yml` shadows a same-named `X.yml`/`X.md` source. */
function workflowName(file: string): string {
  return file.replace(/\.lock\.yml$/, '').replace(/\.ya?ml$/, '');
}

/** Declared workers at the source's revision, each verified there. */
export async function workerRoutes(source: RevisionSource, ctx: RouteContext): Promise<WorkerRoutes> {
  const routes: WorkerRoutes = { ref: source.ref, profiles: {}, defaultProfile: undefined, unavailable: {} };
  const declared = await readWorkersFile(source);
  if (declared !== null) {
    for (const [name, d] of Object.entries(declared.workers)) {
      const status = await verifyWorkerWorkflow(source, d.workflow);
      if (status === 'available') routes.profiles[name] = profileOf(d, source.ref, ctx);
      else routes.unavailable[name] = status;
    }
    const wanted = declared.default ?? Object.keys(declared.workers)[0];
    routes.defaultProfile = wanted !== undefined && Object.hasOwn(routes.profiles, wanted) ? wanted : undefined;
    return routes;
  }
  const files = (await source.listFiles(WORKFLOWS_DIR)).filter((f) => /\.ya?ml$/.test(f)).sort();
  const locked = new Set(files.filter((f) => f.endsWith('.lock.yml')).map(workflowName));
  const found: string[] = [];
  for (const f of files) {
    if (!f.endsWith('.lock.yml') && locked.has(workflowName(f))) continue;
    if ((await verifyWorkerWorkflow(source, `${WORKFLOWS_DIR}/${f}`)) === 'available') found.push(f);
  }
  for (const f of found) {
    const name = found.length === 1 ? 'default' : workflowName(f);
    routes.profiles[name] = profileOf({ workflow: `${WORKFLOWS_DIR}/${f}` }, source.ref, ctx);
  }
  routes.defaultProfile = Object.keys(routes.profiles)[0];
  return routes;
}

/** The default profile's route, or `worker_route_unavailable` (bootstrap publishes nothing then). */
export function requireDefaultRoute(routes: WorkerRoutes): string {
  if (routes.defaultProfile !== undefined) return routes.defaultProfile;
  const why = Object.entries(routes.unavailable).map(([n, r]) => `${n}: ${r}`).join(', ');
  throw new ProtocolError('worker_route_unavailable',
    `no verified worker route at ${routes.ref}: ${why === '' ? `no workflow declares the ${ASSIGNMENT_INPUT} workflow_dispatch input and ${WORKERS_FILE} is absent` : why}`,
    {}, { ref: routes.ref });
}
