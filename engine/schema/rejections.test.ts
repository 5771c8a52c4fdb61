/**
 * Deliberately broken records: zod must reject each one (plain schema and compiled
 * parseQueueCommit alike), and ajv compiling the reference JSON Schema must reject it too wherever
 * the JSON Schema can express the constraint. "zod only" cases assert that ajv ACCEPTS the record,
 * which documents exactly where the zod schemas are stricter and why.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeReference } from '../../tests/support/reference.ts';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ProtocolError } from '../errors.ts';
import { QueueCommitSchema, parseQueueCommit } from './index.ts';

const SHARED = new URL('../../../shared/', import.meta.url);
const SCHEMAS = new URL('reference/gh-aw/pkg/workqueue/schema/', SHARED);
const FIXTURES = new URL('reference/gh-aw/specs/work-queue/fixtures/', SHARED);
const present = existsSync(fileURLToPath(SCHEMAS)) && existsSync(fileURLToPath(FIXTURES));

type Json = Record<string, any>; // free-form mutation of fixtures
const readJson = (url: URL): Json => JSON.parse(readFileSync(url, 'utf8')) as Json;

type AjvClass = typeof Ajv2020Module.default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ?? Ajv2020Module) as AjvClass;
type AddFormats = typeof addFormatsModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as AddFormats;

interface Case {
  name: string;
  base: string;
  mutate: (r: Json) => void;
  /** Dot-joined path of zod's first issue. */
  path: string;
  /** Whether ajv rejects; `false` marks a constraint the JSON Schema cannot express. */
  ajv: boolean;
  /** Validate this part against this snapshot schema file instead of the whole record against QueueCommit.json. */
  snapshot?: { file: string; pick: (r: Json) => unknown };
  /** The error code (codes.ts: the reference contract's specific code where it has one); default schema_invalid. */
  code?: string;
}

const emoji = (n: number) => '😀'.repeat(n);
const op = (r: Json) => r.operations[0] as Json;
const firstOp = (r: Json) => r.operations[0];

const CASES: Case[] = [
  // Envelope.
  { name: 'unknown top-level field', base: 'control', mutate: (r) => (r.extra = 1), path: '', ajv: true },
  { name: 'version 2', base: 'control', mutate: (r) => (r.version = 2), path: 'version', ajv: true , code: 'unsupported_protocol' },
  { name: 'missing version', base: 'control', mutate: (r) => delete r.version, path: 'version', ajv: true , code: 'unsupported_protocol' },
  { name: 'missing request.fingerprint', base: 'control', mutate: (r) => delete r.request.fingerprint, path: 'request.fingerprint', ajv: true , code: 'request_invalid' },
  { name: 'uppercase fingerprint', base: 'control', mutate: (r) => (r.request.fingerprint = r.request.fingerprint.toUpperCase()), path: 'request.fingerprint', ajv: true , code: 'request_invalid' },
  { name: 'operations empty', base: 'control', mutate: (r) => (r.operations = []), path: 'operations', ajv: true },
  { name: '257 operations', base: 'control', mutate: (r) => (r.operations = Array.from({ length: 257 }, () => op(r))), path: 'operations', ajv: true , code: 'resource_limit' },
  { name: 'empty previous', base: 'control', mutate: (r) => (r.previous = ''), path: 'previous', ajv: true },
  { name: 'negative at', base: 'control', mutate: (r) => (r.at = -1), path: 'at', ajv: true },
  { name: 'fractional at', base: 'control', mutate: (r) => (r.at = 4900.5), path: 'at', ajv: true },
  { name: 'unsafe integer at', base: 'control', mutate: (r) => (r.at = 2 ** 53), path: 'at', ajv: true },
  { name: 'at as a string', base: 'control', mutate: (r) => (r.at = '4900'), path: 'at', ajv: true },
  { name: 'unknown trace field', base: 'control', mutate: (r) => (r.trace = { span_id: 's', baggage: 'x' }), path: 'trace', ajv: true },
  { name: 'trace.publisher_attempt 0', base: 'control', mutate: (r) => (r.trace = { publisher_attempt: 0 }), path: 'trace.publisher_attempt', ajv: true },
  { name: 'unknown request kind', base: 'control', mutate: (r) => (r.request.kind = 'grant'), path: 'request.kind', ajv: true , code: 'request_invalid' },
  { name: 'unknown actor role', base: 'control', mutate: (r) => (r.actor.role = 'projector'), path: 'actor.role', ajv: true },
  { name: 'identity of 257 ASCII bytes', base: 'control', mutate: (r) => (r.policy_epoch = 'e'.repeat(257)), path: 'policy_epoch', ajv: true },
  // Identity byte and character rules: the JSON Schema only annotates them (x-utf8-max-bytes, x-forbid-ascii-controls).
  { name: 'zod only (ajv counts characters, not bytes): identity of 65 emoji = 260 UTF-8 bytes', base: 'control', mutate: (r) => (r.id = emoji(65)), path: 'id', ajv: false },
  { name: 'zod only (x-forbid-ascii-controls is an annotation for ajv): identity with a control character', base: 'control', mutate: (r) => (r.actor.repository = 'owner/\u0001repo'), path: 'actor.repository', ajv: false },
  { name: 'zod only (x-forbid-ascii-controls): identity with DEL', base: 'submit', mutate: (r) => (op(r).node_key = 'a\u007f'), path: 'operations.0.node_key', ajv: false },
  // Principals: decimal IDs per contract.json provenance.principal; the JSON Schema types them as Identity.
  { name: 'zod only (principal is Identity in the JSON Schema): actor.principal "0123"', base: 'control', mutate: (r) => (r.actor.principal = '0123'), path: 'actor.principal', ajv: false },
  { name: 'zod only (principal is Identity in the JSON Schema): evidence.principal is a login', base: 'release', mutate: (r) => (op(r).evidence.principal = 'octocat'), path: 'operations.0.evidence.principal', ajv: false , code: 'evidence_invalid' },
  { name: 'zod only (producer keys are principals): non-decimal producer key', base: 'policy', mutate: (r) => (op(r).policy.producers = { bot: op(r).policy.producers['1001'] }), path: 'operations.0.policy.producers.bot', ajv: false },
  // Request parameters are bound to the kind (contract.json request_parameters); the JSON Schema's anyOf is not.
  { name: 'zod only (parameters bound to kind): finish request with operations parameters', base: 'cancel_work', mutate: (r) => (r.request.kind = 'finish'), path: 'request.parameters.dispatch_id', ajv: false , code: 'request_invalid' },
  { name: 'dispatch_next parameters with max_claims 0', base: 'grant', mutate: (r) => (r.request.parameters.max_claims = 0), path: 'request.parameters.max_claims', ajv: true , code: 'request_invalid' },
  { name: 'unknown field in request parameters', base: 'finish', mutate: (r) => (r.request.parameters.run_id = '1'), path: 'request.parameters', ajv: true , code: 'request_invalid' },
  { name: 'submit with zero nodes', base: 'submit', mutate: (r) => (r.request.parameters.nodes = []), path: 'request.parameters.nodes', ajv: true , code: 'request_invalid' },
  // Operations.
  { name: 'unknown operation field', base: 'grant', mutate: (r) => (op(r).priority = 1), path: 'operations.0', ajv: true },
  { name: 'bad operation kind', base: 'grant', mutate: (r) => (op(r).kind = 'Grant'), path: 'operations.0.kind', ajv: true , code: 'unsupported_protocol' },
  { name: 'legacy Transaction kind field', base: 'grant', mutate: (r) => (r.operations[0] = { kind: 'Claim', work_id: 'w', claim_id: 'c', run_id: '1' }), path: 'operations.0.dispatch_id', ajv: true },
  { name: 'Claim with 65 observations', base: 'grant', mutate: (r) => (op(r).observations = Array.from({ length: 65 }, (_, i) => `o${i}`)), path: 'operations.0.observations', ajv: true , code: 'claim_invalid' },
  { name: 'Claim with duplicate observations', base: 'grant', mutate: (r) => (op(r).observations = ['o1', 'o1']), path: 'operations.0.observations', ajv: true , code: 'claim_invalid' },
  { name: 'Dispatch with bad state', base: 'start', mutate: (r) => (op(r).state = 'launched'), path: 'operations.0.state', ajv: true , code: 'dispatch_invalid' },
  { name: 'Dispatch run attempt 2', base: 'bind', mutate: (r) => (op(r).run.run_attempt = 2), path: 'operations.0.run.run_attempt', ajv: true , code: 'run_binding_conflict' },
  { name: 'Dispatch sender with unknown field', base: 'start', mutate: (r) => (op(r).sender.login = 'octocat'), path: 'operations.0.sender', ajv: true },
  { name: 'Completion missing run_id', base: 'finish', mutate: (r) => delete op(r).run_id, path: 'operations.0.run_id', ajv: true },
  { name: 'Completion run_id "0"', base: 'finish', mutate: (r) => (op(r).run_id = '0'), path: 'operations.0.run_id', ajv: true },
  { name: 'Dependency with unknown kind', base: 'submit', mutate: (r) => (op(r).depends_on = [{ kind: 'discussion', work_id: 'x' }]), path: 'operations.0.depends_on.0.kind', ajv: true },
  { name: 'pull_request edge with condition closed', base: 'submit', mutate: (r) => (r.operations[1].depends_on[0].kind = 'pull_request'), path: 'operations.1.depends_on.0.condition', ajv: true },
  { name: 'Work with 65 dependencies', base: 'submit', mutate: (r) => (op(r).depends_on = Array.from({ length: 65 }, (_, i) => ({ kind: 'work', work_id: `w${i}` }))), path: 'operations.0.depends_on', ajv: true },
  { name: 'Work priority 6', base: 'submit', mutate: (r) => (op(r).priority = 6), path: 'operations.0.priority', ajv: true },
  { name: 'Work missing enqueued', base: 'submit', mutate: (r) => delete op(r).enqueued, path: 'operations.0.enqueued', ajv: true },
  { name: 'Work payload is an array', base: 'submit', mutate: (r) => (op(r).payload = ['task']), path: 'operations.0.payload', ajv: true },
  { name: 'zod only (wire value profile, spec 7.6): fractional number inside a payload', base: 'submit', mutate: (r) => (op(r).payload = { weight: 0.5 }), path: 'operations.0.payload', ajv: false },
  { name: 'zod only (typed negative zero is rejected): enqueued -0', base: 'submit', mutate: (r) => (op(r).enqueued = -0), path: 'operations.0.enqueued', ajv: false },
  { name: 'zod only (spec 7.2 bounds keys by 128 UTF-8 bytes): fairness_key of 65 "é"', base: 'submit', mutate: (r) => (op(r).fairness_key = 'é'.repeat(65)), path: 'operations.0.fairness_key', ajv: false },
  { name: 'Resource repository_id "0"', base: 'observe', mutate: (r) => (op(r).resource.repository_id = '0'), path: 'operations.0.resource.repository_id', ajv: true },
  { name: 'Resource number as a JSON number', base: 'observe', mutate: (r) => (op(r).resource.number = 7), path: 'operations.0.resource.number', ajv: true },
  { name: 'Resource resource_id of 257 digits', base: 'observe', mutate: (r) => (op(r).resource.resource_id = '9'.repeat(257)), path: 'operations.0.resource.resource_id', ajv: true },
  { name: 'Observation with unknown state', base: 'observe', mutate: (r) => (op(r).state = 'closed'), path: 'operations.0.state', ajv: true , code: 'observation_invalid' },
  { name: 'Control reason with a space', base: 'control', mutate: (r) => (op(r).reason = 'worker cancelled'), path: 'operations.0.reason', ajv: true , code: 'reason_invalid' },
  { name: 'Control value is a number', base: 'control', mutate: (r) => (op(r).value = 1), path: 'operations.0.value', ajv: true , code: 'control_invalid' },
  { name: 'ClaimCancellation reason with non-ASCII', base: 'cancel_claim', mutate: (r) => (op(r).reason = 'worker_é'), path: 'operations.0.reason', ajv: true , code: 'reason_invalid' },
  { name: 'DeliveryFailure disposition "all"', base: 'delivery_failure', mutate: (r) => (op(r).disposition = 'all'), path: 'operations.0.disposition', ajv: true , code: 'evidence_invalid' },
  { name: 'Result evidence with unknown source', base: 'result', mutate: (r) => (op(r).evidence.source = 'agent'), path: 'operations.0.evidence.source', ajv: true , code: 'evidence_invalid' },
  { name: 'Release evidence with short ref', base: 'release', mutate: (r) => (op(r).evidence.ref = 'abc123'), path: 'operations.0.evidence.ref', ajv: true , code: 'evidence_invalid' },
  { name: 'Policy with four class weights', base: 'policy', mutate: (r) => op(r).policy.class_weights.pop(), path: 'operations.0.policy.class_weights', ajv: true },
  { name: 'Policy accounting weight 0', base: 'policy', mutate: (r) => (op(r).policy.accounting_weights[''] = 0), path: 'operations.0.policy.accounting_weights.', ajv: true },
  { name: 'Policy profile max_claims 17', base: 'policy', mutate: (r) => (op(r).policy.pools.default.profiles.default.max_claims = 17), path: 'operations.0.policy.pools.default.profiles.default.max_claims', ajv: true },
  { name: 'zod only (x-forbid-key-ascii-controls): pool key with a control character', base: 'policy', mutate: (r) => (op(r).policy.pools = { 'de\nfault': op(r).policy.pools.default }), path: 'operations.0.policy.pools.de\nfault', ajv: false },
  // Kinds from other snapshots, checked by ajv against their own snapshot file.
  { name: 'WorkPriority priority 0', base: 'work_priority', mutate: (r) => (op(r).priority = 0), path: 'operations.0.priority', ajv: true, snapshot: { file: 'WorkPriorityOperation.json', pick: firstOp } },
  { name: 'WorkPriority missing expected_priority', base: 'work_priority', mutate: (r) => delete op(r).expected_priority, path: 'operations.0.expected_priority', ajv: true, snapshot: { file: 'WorkPriorityOperation.json', pick: firstOp } },
  { name: 'Deployment profile with a bad logical_contract', base: 'deployment', mutate: (r) => (op(r).profile.logical_contract = 'v1'), path: 'operations.0.profile.logical_contract', ajv: true, snapshot: { file: 'DeploymentOperation.json', pick: firstOp } },
  { name: 'IssueLink projector_ref is not a revision', base: 'issue_link', mutate: (r) => (op(r).projector_ref = 'main'), path: 'operations.0.projector_ref', ajv: true, snapshot: { file: 'IssueLinkOperation.json', pick: firstOp } },
  { name: 'IssueComment with unknown field', base: 'issue_comment', mutate: (r) => (op(r).body = 'hi'), path: 'operations.0', ajv: true, snapshot: { file: 'IssueCommentOperation.json', pick: firstOp } },
  { name: 'Checkpoint prior_git_sha is not hex', base: 'checkpoint', mutate: (r) => (op(r).prior_git_sha = 'z'.repeat(40)), path: 'operations.0.prior_git_sha', ajv: true, snapshot: { file: 'CheckpointOperation.json', pick: firstOp } },
  { name: 'Checkpoint state is null', base: 'checkpoint', mutate: (r) => (op(r).state = null), path: 'operations.0.state', ajv: true, snapshot: { file: 'CheckpointOperation.json', pick: firstOp } },
  { name: 'checkpoint request parameters missing history_sha256', base: 'checkpoint', mutate: (r) => delete r.request.parameters.history_sha256, path: 'request.parameters.history_sha256', ajv: true, snapshot: { file: 'CheckpointParameters.json', pick: (r) => r.request.parameters } , code: 'request_invalid' },
];

describeReference(present, 'broken records (skipped: /work/shared/reference is absent)', () => {
  const ajv = new Ajv2020({ strict: true, strictTypes: false });
  addFormats(ajv);
  for (const keyword of ['x-utf8-max-bytes', 'x-forbid-ascii-controls', 'x-forbid-key-ascii-controls', 'x-key-min-utf8-bytes', 'x-key-utf8-max-bytes']) {
    ajv.addKeyword({ keyword, schemaType: ['number', 'boolean'] });
  }
  const validatorFor = (file: string) => ajv.getSchema(file) ?? ajv.compile(readJson(new URL(file, SCHEMAS)));

  const prefix = readJson(new URL('canonical-prefix.json', FIXTURES)).commits as Json[];
  const root = (readJson(new URL('checkpoint.json', FIXTURES)).genesis_checkpoint as Json[])[0]!;
  const control = prefix[13]!;
  const asControl = (operation: Json): Json => ({ ...control, operations: [operation], request: { ...control.request, parameters: { operations: [structuredClone(operation)] } } });
  const resource = prefix[2]!.operations[0].resource as Json;
  const BASES: Record<string, Json> = {
    policy: prefix[0]!, submit: prefix[1]!, observe: prefix[2]!, grant: prefix[3]!, start: prefix[4]!, bind: prefix[5]!,
    finish: prefix[6]!, result: prefix[7]!, cancel_claim: prefix[8]!, delivery_failure: prefix[10]!, cancel_work: prefix[11]!,
    release: prefix[12]!, control, checkpoint: root,
    work_priority: asControl({ kind: 'WorkPriority', work_id: 'w1', priority: 1, expected_priority: 3, reason: 'expedite' }),
    deployment: asControl({
      kind: 'Deployment', pool: 'default', worker_profile: 'default', expected_ref: '0'.repeat(40), expected_contract: 'b'.repeat(64),
      profile: { workflow: 'w.yml', ref: '1'.repeat(40), trust_domain: 'd', credential_scope: 'repository', effect_scope: 'owner/repo', max_claims: 1, share_keys: false, logical_contract: 'c'.repeat(64) },
      available: true, reason: 'deploy',
    }),
    issue_link: asControl({ kind: 'IssueLink', work_id: 'w1', resource, projector_ref: 'a'.repeat(40) }),
    issue_comment: asControl({ kind: 'IssueComment', work_id: 'w1', comment_id: '9', projector_ref: 'a'.repeat(40) }),
  };
  const ajvCheck = (c: Case, record: Json): boolean => {
    const validate = validatorFor(c.snapshot?.file ?? 'QueueCommit.json');
    return validate(c.snapshot ? c.snapshot.pick(record) : record) as boolean;
  };

  it(`has at least 25 cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(Object.keys(BASES))('base record %s is accepted by zod and by ajv', (name) => {
    const record = BASES[name]!;
    expect(QueueCommitSchema.safeParse(record).success).toBe(true);
    const c = CASES.find((x) => x.base === name)!;
    expect(ajvCheck(c, record)).toBe(true);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const record = structuredClone(BASES[c.base]!);
    c.mutate(record);
    const plain = QueueCommitSchema.safeParse(record);
    expect(plain.success).toBe(false);
    let thrown: unknown;
    try {
      parseQueueCommit(record);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ProtocolError);
    expect((thrown as ProtocolError).code).toBe(c.code ?? 'schema_invalid');
    expect((thrown as ProtocolError).path).toBe(c.path);
    expect(ajvCheck(c, record)).toBe(!c.ajv);
  });
});
