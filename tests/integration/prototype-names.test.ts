/**
 * Names that collide with `Object.prototype` (issue 18 §1): every
 * `Object.getOwnPropertyNames(Object.prototype)` name (`constructor`, `toString`, `__proto__`,
 * `hasOwnProperty`, `valueOf`, ...) behaves like any other string wherever wire or user input
 * keys a map: submit on a real local Git repository, aw.json settings, Policy replay and Work
 * replay. Valid where the spec allows it, rejected with the ordinary code where it does not,
 * never dropped and never answered from the prototype.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { isProtocolError } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { policyFromSettings, readAwJsonSettings } from '../../lib/config/aw.ts';
import { replayBytes, utf8 } from '../support/bytes.ts';
import { runFairway } from '../support/cli.ts';
import { clockView } from '../../engine/scheduler/clocks.ts';
import { REPOSITORY, TestQueue, ledgerOf, policyOf, seal, type Commit } from '../acceptance/queue.ts';
import { checkpointOf } from '../support/checkpoints.ts';
import { TEST_WORKER_REF, writeWorkerWorkflow } from '../support/worker-workflow.ts';

const NAMES = Object.getOwnPropertyNames(Object.prototype);

/** `{...target, [key]: value}` as an own data member even for `__proto__`. */
function withMember(target: JsonObject, key: string, value: unknown): JsonObject {
  const out = { ...target };
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

function codeOf(ledger: string): string {
  try {
    replayBytes(ledger);
    return 'accepted';
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
}

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }).trim();
}

function tip(repo: string): string | null {
  try {
    return git(repo, 'rev-parse', '--verify', '-q', 'refs/heads/work-queue');
  } catch {
    return null;
  }
}

function newRepo(awJson?: string): string {
  const repo = mkdtempSync(join(tmpdir(), 'fairway-proto-'));
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), 'project\n');
  writeWorkerWorkflow(repo);
  if (awJson !== undefined) {
    mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
    writeFileSync(join(repo, '.github', 'workflows', 'aw.json'), awJson);
  }
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'init');
  return repo;
}

async function cli(repo: string, ...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await runFairway(['--repo', repo, '--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

/** The bootstrap ledger of `policy` with one node, its genesis Policy edited by `edit` and resealed. */
function editedGenesis(edit: (policy: JsonObject) => JsonObject): string {
  const q = new TestQueue(policyOf(), [{ node_key: 'a', payload: {} }]);
  const commits = q.commits();
  const genesis = commits[0]!;
  const op = genesis.operations[0]!;
  op.policy = edit(op.policy as JsonObject);
  seal(genesis as Commit);
  return ledgerOf(commits);
}

describe('Object.prototype names on the CLI (real local Git repository)', () => {
  it('submit-work --pool <prototype name> answers unknown_pool like --pool nosuchpool and writes nothing', async () => {
    const repo = newRepo();
    const payload = join(repo, '..', `${repo.split('/').pop()}-p.json`);
    writeFileSync(payload, JSON.stringify({ task: 1 }));
    const control = await cli(repo, 'submit-work', '--file', payload, '--node-key', 'a', '--pool', 'nosuchpool');
    expect(control.json.error.code).toBe('unknown_pool');
    for (const name of NAMES) {
      const r = await cli(repo, 'submit-work', '--file', payload, '--node-key', 'a', '--pool', name);
      expect({ name, code: r.code, error: r.json.error.code }).toEqual({ name, code: control.code, error: 'unknown_pool' });
      const p = await cli(repo, 'submit-work', '--file', payload, '--node-key', 'a', '--worker-profile', name);
      expect({ name, error: p.json.error.code }).toEqual({ name, error: 'unknown_profile' });
      const k = await cli(repo, 'submit-work', '--file', payload, '--node-key', 'a', '--fairness-key', name);
      expect({ name, error: k.json.error.code }).toEqual({ name, error: 'unknown_fairness_key' });
    }
    expect(tip(repo)).toBeNull();
  });

  it('an aw.json pool and accounting weight named __proto__ or constructor bootstrap and take Work', async () => {
    const repo = newRepo('{"work_queue":{"pools":{"__proto__":{"concurrency":2},"constructor":{"concurrency":3}},"accounting_weights":{"__proto__":3}}}');
    const payload = join(repo, '..', `${repo.split('/').pop()}-p.json`);
    writeFileSync(payload, JSON.stringify({ task: 1 }));
    const first = await cli(repo, 'submit-work', '--file', payload, '--node-key', 'a', '--pool', '__proto__', '--fairness-key', '__proto__');
    expect(first.code).toBe(0);
    const second = await cli(repo, 'submit-work', '--file', payload, '--node-key', 'b', '--pool', 'constructor');
    expect(second.code).toBe(0);
    const stats = await cli(repo, 'stats');
    const limits = Object.fromEntries((stats.json.pools as { pool: string; logical_limit: number }[]).map((p) => [`pool:${p.pool}`, p.logical_limit]));
    expect(limits).toMatchObject({ 'pool:__proto__': 2, 'pool:constructor': 3 });
  });
});

describe('Object.prototype names in aw.json settings', () => {
  it('pool and accounting-weight names from Object.prototype are kept as own members, never dropped', () => {
    for (const name of NAMES) {
      const text = `{"work_queue":{"pools":{${JSON.stringify(name)}:{"concurrency":2}},"accounting_weights":{${JSON.stringify(name)}:3}}}`;
      const settings = readAwJsonSettings(utf8(text));
      expect(Object.hasOwn(settings.pools, name), name).toBe(true);
      expect(Object.hasOwn(settings.accounting_weights, name), name).toBe(true);
      const policy = policyFromSettings(settings, { repository: REPOSITORY, principal: '1001', profile: { ref: TEST_WORKER_REF } });
      expect(Object.keys(policy.pools as object).sort(), name).toEqual(['default', name].sort());
      expect((policy.accounting_weights as Record<string, number>)[name], name).toBe(3);
      // The Policy replays with the pool usable and the weight kept.
      const q = new TestQueue(policy, [{ node_key: 'a', payload: {}, pool: name, fairness_key: name }]);
      const state = replayBytes(q.text()).state;
      expect(Object.hasOwn(state.policy!.policy.pools as object, name), name).toBe(true);
      expect((state.policy!.policy.accounting_weights as Record<string, number>)[name], name).toBe(3);
      expect([...state.works.values()][0]!.pool, name).toBe(name);
    }
  });
});

describe('Object.prototype names in a replayed Policy', () => {
  it('a default_profile naming an Object.prototype member is policy_invalid (names no profile)', () => {
    for (const name of NAMES) {
      const ledger = editedGenesis((policy) => {
        const pools = policy.pools as Record<string, JsonObject>;
        return { ...policy, pools: { ...pools, default: { ...pools.default!, default_profile: name } } };
      });
      expect({ name, code: codeOf(ledger) }).toEqual({ name, code: 'policy_invalid' });
    }
  });

  it('a producers key named like an Object.prototype member is rejected exactly like producers key abc', () => {
    const rule = { pools: ['default'], priorities: [3], fairness_keys: [''] };
    const control = codeOf(editedGenesis((policy) => ({ ...policy, producers: { abc: rule } })));
    expect(control).not.toBe('accepted');
    for (const name of NAMES) {
      expect({ name, code: codeOf(editedGenesis((policy) => ({ ...policy, producers: withMember({}, name, rule) }))) }).toEqual({ name, code: control });
    }
  });

  it('pool, profile and weight entries named like Object.prototype members are installed as written in the ledger line', () => {
    for (const name of NAMES) {
      const ledger = editedGenesis((policy) => {
        const pools = policy.pools as Record<string, JsonObject>;
        const pool = pools.default!;
        const profiles = withMember(pool.profiles as JsonObject, name, (pool.profiles as Record<string, JsonObject>).default);
        return {
          ...policy,
          accounting_weights: withMember(policy.accounting_weights as JsonObject, name, 5),
          pools: withMember({ default: { ...pool, profiles } }, name, { ...pool, profiles }),
        };
      });
      const installed = replayBytes(ledger).state.policy!.policy;
      const line = JSON.parse(ledger.split('\n')[0]!).operations[0].policy as JsonObject;
      expect(canonicalize(installed), name).toBe(canonicalize(line));
      expect(Object.keys(installed.pools as object).sort(), name).toEqual(['default', name].sort());
      expect(Object.keys((installed.pools as Record<string, JsonObject>)[name]!.profiles as object).sort(), name).toEqual(['default', name].sort());
      expect((installed.accounting_weights as Record<string, number>)[name], name).toBe(5);
    }
  });
});

describe('Object.prototype names in replayed Work', () => {
  it('Work in an unconfigured pool, profile or fairness key named like an Object.prototype member gets the ordinary code', () => {
    const work = (edit: (op: JsonObject) => JsonObject): string => {
      const q = new TestQueue(policyOf(), [{ node_key: 'a', payload: {} }]);
      const commits = q.commits();
      const genesis = commits[0]!;
      genesis.operations[1] = edit(genesis.operations[1]!);
      (genesis.request.parameters as { nodes: JsonObject[] }).nodes[0] = genesis.operations[1]!;
      seal(genesis as Commit);
      return ledgerOf(commits);
    };
    const pool = codeOf(work((op) => ({ ...op, pool: 'nosuchpool' })));
    const profile = codeOf(work((op) => ({ ...op, worker_profile: 'nosuchprofile' })));
    const key = codeOf(work((op) => ({ ...op, fairness_key: 'nosuchkey' })));
    expect([pool, profile, key]).toEqual(['unknown_pool', 'unknown_profile', 'unknown_fairness_key']);
    for (const name of NAMES) {
      expect({ name, pool: codeOf(work((op) => ({ ...op, pool: name }))), profile: codeOf(work((op) => ({ ...op, worker_profile: name }))), key: codeOf(work((op) => ({ ...op, fairness_key: name }))) })
        .toEqual({ name, pool, profile, key });
    }
  });
});

describe('Object.prototype names through compaction', () => {
  it('a checkpoint of a queue whose pool and fairness key are Object.prototype names keeps their clocks and replays to the same selection state', () => {
    for (const name of NAMES) {
      const text = `{"work_queue":{"pools":{${JSON.stringify(name)}:{"concurrency":2}},"accounting_weights":{${JSON.stringify(name)}:3}}}`;
      const policy = policyFromSettings(readAwJsonSettings(utf8(text)), { repository: REPOSITORY, principal: '1001', profile: { ref: TEST_WORKER_REF } });
      const q = new TestQueue(policy, [
        { node_key: 'a', payload: {}, pool: name, fairness_key: name },
        { node_key: 'b', payload: {}, pool: name, fairness_key: '' },
      ]);
      q.grant({ pool: name });
      const full = replayBytes(q.text()).state;
      const compacted = replayBytes(checkpointOf(q.text())).state;
      expect(clockView(full.fairness, name).keys['3']!.pass, name).toHaveProperty([name]);
      expect(clockView(compacted.fairness, name), name).toEqual(clockView(full.fairness, name));
      expect(Object.keys(compacted.policy!.policy.pools as object).sort(), name).toEqual(['default', name].sort());
    }
  });
});
