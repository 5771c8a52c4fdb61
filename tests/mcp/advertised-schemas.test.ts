/**
 * The tool list each role sees (spec 7.12, 7.14): only a worker holds an assignment, so only a
 * worker's tool schemas offer `claim_handle`; a producer's or dispatcher's list does not invite a
 * field its calls always refuse (`claim_scope_invalid`). Each advertised schema, checked with the
 * MCP SDK's own JSON Schema validator, accepts the valid calls the handler stages or answers, and
 * the handler stays as strict as before: a `claim_handle` from an unassigned role keeps its code.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { STAGING_TOOLS } from '../../engine/intents/schemas.ts';
import { call, grant, intentFiles, makeRepo, memoryClient, nodes, seedQueue, snapshot, tmp, workerSnapshot } from './helpers.ts';

const ROLES = ['observer', 'producer', 'dispatcher', 'worker'] as const;
type Role = (typeof ROLES)[number];

let dir: string;
let handle: string;
const clients = {} as Record<Role, Client>;

beforeAll(async () => {
  const repo = makeRepo();
  dir = tmp('fairway-advertised-');
  await seedQueue(repo, nodes('a', 'b', 'c'));
  const [assignment] = await grant(repo, 'grant-advertised', 1);
  handle = (assignment!.claims as Array<{ handle: string }>)[0]!.handle;
  for (const role of ROLES) {
    const snap = role === 'worker' ? await workerSnapshot(repo, dir, assignment!, '5001') : await snapshot(repo, role, dir);
    clients[role] = await memoryClient(snap, join(dir, `intents-${role}`));
  }
});

/** The input schemas of `role`'s tool list, by tool name. */
async function listed(role: Role): Promise<Map<string, Record<string, unknown>>> {
  const { tools } = await clients[role].listTools();
  return new Map(tools.map((t) => [t.name, t.inputSchema as Record<string, unknown>]));
}

const validator = new AjvJsonSchemaValidator();
function accepts(schema: Record<string, unknown>, input: unknown): { valid: boolean; errorMessage?: string } {
  return validator.getValidator(schema as never)(input);
}

describe('advertised tool schemas per role', () => {
  it('claim_handle is advertised on every staging tool of a worker, and on no tool of another role', async () => {
    for (const role of ROLES) {
      const schemas = await listed(role);
      const offering = [...schemas].filter(([, s]) => Object.hasOwn((s.properties ?? {}) as object, 'claim_handle')).map(([name]) => name).sort();
      expect(offering, role).toEqual(role === 'worker' ? [...STAGING_TOOLS].sort() : []);
      for (const [name, schema] of schemas) expect(schema.additionalProperties, `${role} ${name}`).toBe(false);
    }
  });

  it('each role\'s advertised schemas accept the valid calls its handler accepts', async () => {
    const common: Array<[string, Record<string, unknown>]> = [
      ['work_queue_read', {}],
      ['work_queue_read', { state: 'available', sort: 'priority', limit: 5, line_limit: 3 }],
      ['work_queue_explain', { pool: 'default' }],
    ];
    const submits: Array<[string, Record<string, unknown>]> = [
      ['work_queue_submit', { node: { payload: { plan: 'one' } } }],
      ['work_queue_submit', { nodes: [{ node_key: 'x', payload: {} }, { node_key: 'y', payload: {}, depends_on: [{ kind: 'work', node_key: 'x' }] }], graph_id: 'g1' }],
    ];
    const valid: Record<Role, Array<[string, Record<string, unknown>]>> = {
      observer: common,
      producer: [...common, ...submits],
      dispatcher: [...common, ...submits, ['work_queue_dispatch_next', { pool: 'default' }], ['work_queue_dispatch_next', { pool: 'default', max_claims: 1, max_dispatches: 1 }]],
      worker: [
        ...common,
        ['work_queue_submit', { node: { payload: { plan: 'follow-up' } } }],
        ['work_queue_submit', { node: { payload: { plan: 'scoped follow-up' } }, claim_handle: handle }],
        ['work_queue_claim_finish', { claim_handle: handle, outcome: 'completed' }],
        ['work_queue_claim_finish', { outcome: 'completed' }],
      ],
    };
    for (const role of ROLES) {
      const schemas = await listed(role);
      for (const [tool, args] of valid[role]) {
        const label = `${role} ${tool} ${JSON.stringify(args)}`;
        const reply = await call(clients[role], tool, args);
        expect(reply.ok, `${label}: ${String(reply.value)}`).toBe(true);
        const verdict = accepts(schemas.get(tool)!, args);
        expect(verdict.valid, `${label}: ${verdict.errorMessage}`).toBe(true);
      }
    }
  });

  it('a claim_handle from an unassigned role is outside its advertised schema, and the handler still refuses it with claim_scope_invalid', async () => {
    const cases: Array<[Role, string, Record<string, unknown>]> = [
      ['producer', 'work_queue_submit', { node: { payload: {} }, claim_handle: 'h1' }],
      ['dispatcher', 'work_queue_submit', { node: { payload: {} }, claim_handle: 'h1' }],
      ['dispatcher', 'work_queue_dispatch_next', { pool: 'default', claim_handle: 'h1' }],
    ];
    for (const [role, tool, args] of cases) {
      const label = `${role} ${tool}`;
      expect(accepts((await listed(role)).get(tool)!, args).valid, label).toBe(false);
      expect(await call(clients[role], tool, args), label).toMatchObject({ ok: false, code: 'claim_scope_invalid' });
    }
    expect(intentFiles(join(dir, 'intents-producer')).length).toBe(2);
  });
});
