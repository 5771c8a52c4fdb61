/**
 * Shared fixtures for the MCP intent tests: a real temporary Git repository
 * with a LocalGitStore, the CLI run in-process, the MCP server behind the
 * official SDK client (in-memory or stdio), and the dispatcher/reconciler
 * launch binding published through the checked publisher.
 */
import { execFileSync } from 'node:child_process';
import { expect } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { runFairway } from '../support/cli.ts';
import type { JsonObject } from '../../engine/json.ts';
import { grantPlan } from '../../engine/receipts/dispatch.ts';
import { INTENT_SCHEMA, intentFingerprint } from '../../engine/intents/records.ts';
import { bootstrapRequest, submitRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import { dispatchBound, dispatchStarted } from '../../engine/requests/lifecycle.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { defaultWorkQueueSettings, policyFromSettings } from '../../lib/config/aw.ts';
import { loadSnapshot } from '../../lib/intents/snapshot.ts';
import { IntentStore } from '../../lib/intents/store.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { createIntentServer } from '../../mcp/server.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';

export const REPOSITORY = 'acme/queue';
export const PRINCIPAL = '1';

export function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' },
  }).trim();
}

export function tmp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A fresh repository with one commit on `main` and a `acme/queue` origin. */
export function makeRepo(): string {
  const repo = tmp('fairway-mcp-repo-');
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'remote', 'add', 'origin', `https://github.com/${REPOSITORY}.git`);
  writeFileSync(join(repo, 'README.md'), 'project\n');
  mkdirSync(join(repo, '.github/workflows'), { recursive: true });
  writeFileSync(join(repo, WORKER_WORKFLOW), workerWorkflowYaml());
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'init');
  return repo;
}

export function branchTip(repo: string): string | null {
  try {
    return git(repo, 'rev-parse', '--verify', '-q', 'refs/heads/work-queue');
  } catch {
    return null;
  }
}

export function publisherFor(repo: string): Publisher {
  return new Publisher(new LocalGitStore({ repo }));
}

const producer: Actor = { role: 'producer', principal: PRINCIPAL, repository: REPOSITORY };

/** Creates the queue with a default Policy whose profile allows `maxClaims` per dispatch (and more `pools` like `default`), and admits `nodes`. */
export async function seedQueue(repo: string, nodes: SubmitNode[], o: { maxClaims?: number; keys?: Record<string, number>; limits?: Record<string, number>; pools?: string[] } = {}): Promise<void> {
  const settings = defaultWorkQueueSettings();
  if (o.keys !== undefined) settings.accounting_weights = { '': 1, ...o.keys };
  const policy = policyFromSettings(settings, { repository: REPOSITORY, principal: PRINCIPAL, profile: { ref: git(repo, 'rev-parse', 'main'), max_claims: o.maxClaims ?? 1 } });
  if (o.limits !== undefined) Object.assign(policy.limits as JsonObject, o.limits);
  // More pools configured like `default` (its profile and limits).
  const pools = policy.pools as Record<string, JsonObject>;
  for (const pool of o.pools ?? []) pools[pool] = structuredClone(pools.default!);
  await publisherFor(repo).publish({
    requestId: 'seed',
    actor: producer,
    prepare: () => { throw new Error('the seed bootstraps'); },
    bootstrap: (ids) => bootstrapRequest(policy, 'epoch-1', nodes, { graphId: 'seed', at: ids.at }),
  });
}

/** Admits more Work directly (another producer acting between snapshot and processing). */
export async function submitDirect(repo: string, requestId: string, nodes: SubmitNode[]): Promise<string[]> {
  const outcome = await publisherFor(repo).publish({
    requestId,
    actor: producer,
    prepare: (p, ids) => submitRequest(p.state, nodes, { graphId: 'seed', at: ids.at }),
  });
  return outcome.projection.request(requestId)!.workIds;
}

/** The dispatcher records the start marker, the reconciler binds the actual run (spec 7.8). */
export async function bindDispatch(repo: string, dispatchId: string, runId: string): Promise<void> {
  const publisher = publisherFor(repo);
  const dispatcher: Actor = { role: 'dispatcher', principal: PRINCIPAL, repository: REPOSITORY, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '4001', run_attempt: 1 };
  await publisher.publish({ requestId: `start-${dispatchId}`, actor: dispatcher, prepare: () => dispatchStarted(dispatchId, dispatcher as unknown as JsonObject) });
  const reconciler: Actor = { role: 'reconciler', principal: PRINCIPAL, repository: REPOSITORY };
  await publisher.publish({ requestId: `bind-${dispatchId}`, actor: reconciler, prepare: (p, ids) => dispatchBound(p.state, dispatchId, runId, ids.at) });
}

/** Runs the CLI in-process with `--json`; returns the exit code and the parsed output. */
export async function cli(...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await runFairway(['--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: out === '' ? null : JSON.parse(out) };
}

let snapshots = 0;

export async function snapshot(repo: string, role: string, dir: string, extra: string[] = []): Promise<string> {
  const out = join(dir, `snapshot-${++snapshots}.json`);
  const r = await cli('--repo', repo, 'snapshot', '--role', role, '--out', out, ...extra);
  if (r.code !== 0) throw new Error(`snapshot failed: ${JSON.stringify(r.json)}`);
  return out;
}

export async function processIntents(repo: string, snapshotFile: string, intents: string, ...extra: string[]): Promise<any> {
  const r = await cli('--repo', repo, 'process-intents', '--snapshot', snapshotFile, '--intents', intents, ...extra);
  if (r.code !== 0) throw new Error(`process-intents failed: ${JSON.stringify(r.json)}`);
  return r.json;
}

export function writeJson(dir: string, name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

export function readJson(path: string): any {
  return JSON.parse(readFileSync(path, 'utf8'));
}

export interface ToolReply {
  ok: boolean;
  code?: string;
  value: any;
}

/** Calls a tool and normalizes success / coded failure (SDK-level validation included). */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolReply> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ type: string; text: string }>)[0]?.text ?? '';
  if (result.isError === true) {
    const code = /(?:^|: )([a-z][a-z0-9]*(?:_[a-z0-9]+)+): /.exec(text)?.[1];
    // An internal_error is a bug in Fairway, never an expected tool answer.
    expect(code, `tool ${name} hit an internal error: ${text}`).not.toBe('internal_error');
    return { ok: false, ...(code === undefined ? {} : { code }), value: text };
  }
  return { ok: true, value: result.structuredContent ?? JSON.parse(text) };
}

/** The MCP server on an in-memory transport, driven by the official SDK client. */
export async function memoryClient(snapshotFile: string, intents: string): Promise<Client> {
  const loaded = await loadSnapshot(snapshotFile);
  const server = createIntentServer({ loaded, intents: new IntentStore(intents) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'fairway-test', version: '0.0.0' });
  await client.connect(clientSide);
  return client;
}

export function nodes(...keys: string[]): SubmitNode[] {
  return keys.map((k) => ({ node_key: k, payload: { plan: `task ${k}` } }));
}

/** Grants the next fair batch with the operator CLI; returns the immutable assignments of its groups. */
export async function grant(repo: string, requestId: string, maxClaims: number, maxDispatches = 1): Promise<JsonObject[]> {
  const r = await cli('--repo', repo, '--request-id', requestId, 'dispatch-next', '--max-claims', String(maxClaims), '--max-dispatches', String(maxDispatches));
  if (r.code !== 0) throw new Error(`dispatch-next failed: ${JSON.stringify(r.json)}`);
  const { projection } = await publisherFor(repo).cache.load();
  return grantPlan(projection!, requestId).groups.map((g) => g.assignment);
}

/** Binds the group to `runId` (unless `bind` is false) and captures the worker's snapshot. */
export async function workerSnapshot(repo: string, dir: string, assignment: JsonObject, runId: string, bind = true): Promise<string> {
  if (bind) await bindDispatch(repo, assignment.dispatch_id as string, runId);
  const file = writeJson(dir, `assignment-${String(assignment.dispatch_id).slice(-8)}-${++snapshots}.json`, assignment);
  return snapshot(repo, 'worker', dir, ['--assignment', file, '--run-id', runId]);
}

export function intentFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.intent.json'));
  } catch {
    return [];
  }
}

/**
 * Writes an intent file directly, as an agent with filesystem access could,
 * bypassing every MCP-side check (the processor must repeat them all).
 */
export function forgeIntent(dir: string, snapshotFile: string, tool: string, input: Record<string, unknown>, o: { intentId?: string; scope?: unknown; seq?: number } = {}): string {
  mkdirSync(dir, { recursive: true });
  const seq = o.seq ?? intentFiles(dir).length + 1;
  const body = {
    schema: INTENT_SCHEMA,
    intent_id: o.intentId ?? `i_${randomBytes(16).toString('hex')}`,
    seq,
    tool,
    snapshot_id: readJson(snapshotFile).snapshot_id,
    staged_at: 1,
    input,
    scope: o.scope ?? null,
  };
  const record = { ...body, fingerprint: intentFingerprint(body as never) };
  writeFileSync(join(dir, `${String(seq).padStart(6, '0')}-${body.intent_id}.intent.json`), JSON.stringify(record));
  return body.intent_id;
}
