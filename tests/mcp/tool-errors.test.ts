/**
 * Every failure of an intent tool is one shape (mcp/server.ts; MCP SEP-1303): a tool error whose
 * text starts with a stable `code: ` and whose structured content is `{"ok": false, "error":
 * {"code", "message", "path"?}}`, the argument check included, so an agent reads why and can
 * correct its call. A name that is no intent tool is the protocol's own error (-32602).
 * Nothing is staged by a refused call.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { workId } from '../../engine/identity/index.ts';
import { intentFiles, makeRepo, memoryClient, seedQueue, snapshot, tmp } from './helpers.ts';

let dir: string;
let dispatcherSnap: string;
let observerSnap: string;

beforeAll(async () => {
  const repo = makeRepo();
  dir = tmp('fairway-tool-errors-');
  await seedQueue(repo, [{ node_key: 'a', payload: { plan: 'a' } }]);
  dispatcherSnap = await snapshot(repo, 'dispatcher', join(dir, 'd'));
  observerSnap = await snapshot(repo, 'observer', join(dir, 'o'));
});

interface Refusal {
  isError: boolean;
  text: string;
  structured: { ok: boolean; error: { code: string; message: string; path?: string } };
}

async function refused(client: Client, name: string, args: unknown): Promise<Refusal> {
  const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
  const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
  return { isError: result.isError === true, text, structured: result.structuredContent as Refusal['structured'] };
}

describe('MCP tool errors', () => {
  it('an argument of the wrong type, a missing or unknown member, or a value out of range is a coded tool error with its path, and stages nothing', async () => {
    const intents = join(dir, 'dispatcher-intents');
    const client = await memoryClient(dispatcherSnap, intents);
    const cases: Array<[string, unknown, string, string | undefined]> = [
      ['work_queue_dispatch_next', { pool: 5 }, 'intent_invalid', 'pool'],
      ['work_queue_dispatch_next', {}, 'intent_invalid', 'pool'],
      ['work_queue_dispatch_next', { pool: 'default', max_claims: 0 }, 'intent_invalid', 'max_claims'],
      ['work_queue_dispatch_next', { pool: 'default', max_claims: 'two' }, 'intent_invalid', 'max_claims'],
      ['work_queue_dispatch_next', { pool: 'default', work_id: 'w1' }, 'work_selector_not_allowed', 'work_id'],
      ['work_queue_submit', { node: { payload: 'plan' } }, 'payload_invalid', 'node.payload'],
      ['work_queue_submit', { node: { payload: {} }, nodes: [{ payload: {} }] }, 'intent_invalid', undefined],
      ['work_queue_read', { limit: -1 }, 'intent_invalid', 'limit'],
      ['work_queue_read', { sort: 'random' }, 'intent_invalid', 'sort'],
      ['work_queue_explain', { work_id: 7 }, 'intent_invalid', 'work_id'],
    ];
    for (const [tool, args, code, path] of cases) {
      const reply = await refused(client, tool, args);
      const label = `${tool} ${JSON.stringify(args)}`;
      expect(reply.isError, label).toBe(true);
      expect(reply.structured, label).toMatchObject({ ok: false, error: { code } });
      expect(reply.structured.error.path, label).toBe(path);
      expect(reply.text.startsWith(`${code}: `), `${label}: ${reply.text}`).toBe(true);
      expect(reply.text).not.toContain('MCP error');
    }
    expect(intentFiles(intents)).toEqual([]);
  });

  it('an unknown member\'s name is repeated bounded: a few names, each cut short, the rest counted; its path too', async () => {
    const client = await memoryClient(dispatcherSnap, join(dir, 'long-names'));
    const args: Record<string, unknown> = { pool: 'default' };
    for (let i = 0; i < 50; i++) args[`${'k'.repeat(10_000)}${i}`] = 1;
    const many = await refused(client, 'work_queue_dispatch_next', args);
    expect(many.structured.error.code).toBe('field_not_allowed');
    expect(many.text.length).toBeLessThan(1000);
    expect(many.text).toContain('and 47 more');
    const one = await refused(client, 'work_queue_submit', { node: { payload: {}, ['z'.repeat(300_000)]: 1 } });
    expect(one.structured.error.code).toBe('field_not_allowed');
    expect(one.text.length).toBeLessThan(1000);
    expect(one.structured.error.path).toBe(`node.${'z'.repeat(64)}…`);
  });

  it('an Issue/PR gate the spec forbids is refused at staging with the code processing gives it; a valid gate is staged', async () => {
    const intents = join(dir, 'gate-intents');
    const client = await memoryClient(dispatcherSnap, intents);
    const issue = { kind: 'issue', host: 'github.com', repository: 'acme/queue', repository_id: '10', resource_id: '20', number: '3' };
    const pr = { ...issue, kind: 'pull_request' };
    const cases: Array<[unknown, string, string]> = [
      [{ kind: 'issue', condition: 'merged', resource: issue }, 'dependency_invalid', 'condition'],
      [{ kind: 'pull_request', condition: 'completed', resource: pr }, 'dependency_invalid', 'condition'],
      [{ kind: 'pull_request', condition: 'merged', resource: issue }, 'dependency_invalid', 'resource.kind'],
      [{ kind: 'issue', condition: 'closed', resource: { repository: 'acme/queue', number: '3' } }, 'intent_invalid', 'resource.kind'],
      [{ kind: 'issue', condition: 'closed', resource: { ...issue, number: '03' } }, 'intent_invalid', 'resource.number'],
      [{ kind: 'issue', condition: 'closed', resource: { ...issue, number: 3 } }, 'intent_invalid', 'resource.number'],
    ];
    for (const [edge, code, path] of cases) {
      const reply = await refused(client, 'work_queue_submit', { node: { payload: { p: 1 }, depends_on: [edge] } });
      const label = JSON.stringify(edge);
      expect(reply.isError, label).toBe(true);
      expect(reply.structured, label).toMatchObject({ ok: false, error: { code, path: `node.depends_on.0.${path}` } });
    }
    expect(intentFiles(intents)).toEqual([]);
    for (const edge of [{ kind: 'issue', condition: 'completed', resource: issue }, { kind: 'pull_request', condition: 'merged', resource: pr }]) {
      const staged = await client.callTool({ name: 'work_queue_submit', arguments: { node: { payload: { p: 1 }, depends_on: [edge] } } });
      expect(staged.structuredContent, JSON.stringify(edge)).toMatchObject({ ok: true, status: 'staged' });
    }
    // The advertised schema says the same: each gate kind with its own conditions and a complete resource.
    const { tools } = await client.listTools();
    const submit = tools.find((t) => t.name === 'work_queue_submit')!;
    const edges = JSON.stringify((submit.inputSchema.properties as Record<string, { properties: Record<string, unknown> }>).node!.properties.depends_on);
    expect(edges).toContain('"required":["kind","host","repository","repository_id","resource_id","number"]');
    expect(edges).toContain('"condition":{"type":"string","const":"merged"}');
  });

  it('a pool the Policy does not configure is unknown_pool on every read and explain path, a Work\'s included', async () => {
    const client = await memoryClient(observerSnap, join(dir, 'pool-intents'));
    const work = workId('seed', 'a');
    for (const [tool, args] of [
      ['work_queue_read', { pool: 'nope' }],
      ['work_queue_explain', { pool: 'nope' }],
      ['work_queue_explain', { pool: 'nope', work_id: work }],
    ] as const) {
      const reply = await refused(client, tool, args);
      expect(reply.structured, `${tool} ${JSON.stringify(args)}`).toMatchObject({ ok: false, error: { code: 'unknown_pool' } });
    }
    expect((await client.callTool({ name: 'work_queue_explain', arguments: { pool: 'default', work_id: work } })).isError).not.toBe(true);
  });

  it('an intent tool this role does not list is role_not_allowed, whatever its arguments', async () => {
    const intents = join(dir, 'observer-intents');
    const client = await memoryClient(observerSnap, intents);
    for (const [tool, args] of [
      ['work_queue_submit', { node: { payload: { p: 1 } } }],
      ['work_queue_dispatch_next', { pool: 7 }],
      ['work_queue_claim_finish', { outcome: 'completed' }],
    ] as const) {
      const reply = await refused(client, tool, args);
      expect(reply.isError, tool).toBe(true);
      expect(reply.structured, tool).toMatchObject({ ok: false, error: { code: 'role_not_allowed' } });
      expect(reply.text.startsWith('role_not_allowed: '), reply.text).toBe(true);
    }
    expect(intentFiles(intents)).toEqual([]);
  });

  it('a name that is no intent tool is the protocol\'s invalid-params error', async () => {
    const client = await memoryClient(observerSnap, join(dir, 'unknown-intents'));
    const error = await client.callTool({ name: 'work_queue_delete', arguments: {} }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toContain('work_queue_delete');
  });

  it('valid calls still answer, with the schema defaults applied', async () => {
    const intents = join(dir, 'valid-intents');
    const client = await memoryClient(dispatcherSnap, intents);
    const staged = await client.callTool({ name: 'work_queue_dispatch_next', arguments: { pool: 'default' } });
    expect(staged.isError).not.toBe(true);
    expect(staged.structuredContent).toMatchObject({ ok: true, status: 'staged' });
    const [file] = intentFiles(intents);
    expect(file).toBeDefined();
    const read = await client.callTool({ name: 'work_queue_read', arguments: { limit: 1 } });
    expect(read.isError).not.toBe(true);
  });
});
