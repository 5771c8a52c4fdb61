/**
 * Producer input through the real entry point (`submit-graph`, `simulate`) on real local Git
 * queues: input no trusted evidence could ever satisfy, or that the parser would quietly
 * reinterpret, is refused with a stable code naming the offending field, and nothing is written.
 */
import { describe, expect, it } from 'vitest';
import { runCaptured } from '../support/cli.ts';
import { fixtureRepo, git, inputFiles, queueTip, repoCli } from '../support/fixture-repo.ts';

/** A queue of octo-org/app (its allowed repository), created by one submit-work. */
async function appQueue(): Promise<{ repo: string; file: (name: string, value: unknown) => string }> {
  const repo = fixtureRepo('fairway-input-');
  git(repo, 'remote', 'add', 'origin', 'https://github.com/octo-org/app.git');
  const file = inputFiles('fairway-input-files-');
  expect((await repoCli(repo, 'submit-work', '--file', file('seed.json', { plan: 'seed' }), '--node-key', 'seed')).code).toBe(0);
  return { repo, file };
}

const resource = (kind: 'issue' | 'pull_request') => ({
  kind, host: 'github.com', repository: 'octo-org/app', repository_id: '123456789', resource_id: kind === 'issue' ? '2233445566' : '3344556677', number: kind === 'issue' ? '42' : '43',
});

describe('submit-graph: Issue and pull-request gates', () => {
  it('a gate whose resource or condition is of the other kind (never satisfiable) is dependency_invalid naming the field; nothing is written', async () => {
    const { repo, file } = await appQueue();
    const at = queueTip(repo);
    const cases: Array<[unknown, string]> = [
      [{ kind: 'issue', condition: 'completed', resource: resource('pull_request') }, 'nodes.1.depends_on.0.resource.kind'],
      [{ kind: 'pull_request', condition: 'merged', resource: resource('issue') }, 'nodes.1.depends_on.0.resource.kind'],
      [{ kind: 'issue', condition: 'merged', resource: resource('issue') }, 'nodes.1.depends_on.0.condition'],
      [{ kind: 'pull_request', condition: 'closed', resource: resource('pull_request') }, 'nodes.1.depends_on.0.condition'],
    ];
    for (const [edge, path] of cases) {
      const graph = [{ node_key: 'a', payload: {} }, { node_key: 'b', payload: {}, depends_on: [edge] }];
      const r = await repoCli(repo, 'submit-graph', '--file', file('graph.json', graph));
      expect([r.code, r.json.error?.code, r.json.error?.path], JSON.stringify(edge)).toEqual([3, 'dependency_invalid', path]);
    }
    expect(queueTip(repo)).toBe(at);
    // The matching pairs are admitted.
    const ok = [{ node_key: 'c', payload: {}, depends_on: [{ kind: 'issue', condition: 'closed', resource: resource('issue') }, { kind: 'pull_request', condition: 'merged', resource: resource('pull_request') }] }];
    expect((await repoCli(repo, 'submit-graph', '--file', file('ok.json', ok))).code).toBe(0);
  });
});

describe('submit-graph: edge errors name the field', () => {
  it('a bad dependency edge is input_invalid at the offending field of the file (not "Invalid input" at the edge, nor a refused-commit schema path); nothing is written', async () => {
    const { repo, file } = await appQueue();
    const at = queueTip(repo);
    const { number: _number, ...noNumber } = resource('issue');
    const cases: Array<[unknown, string]> = [
      [{ kind: 'issue', condition: 'closed' }, '0.depends_on.0.resource'],
      [{ kind: 'issue', condition: 'closed', resource: noNumber }, '0.depends_on.0.resource.number'],
      [{ kind: 'issue', condition: 'closed', resource: { ...resource('issue'), repository_id: 123456789 } }, '0.depends_on.0.resource.repository_id'],
      [{ kind: 'issue', condition: 'closed', resource: { ...resource('issue'), extra: 'x' } }, '0.depends_on.0.resource'],
      [{ kind: 'discussion', condition: 'closed', resource: resource('issue') }, '0.depends_on.0.kind'],
    ];
    for (const [edge, path] of cases) {
      const r = await repoCli(repo, 'submit-graph', '--file', file('graph.json', [{ node_key: 'a', payload: {}, depends_on: [edge] }]));
      expect([r.code, r.json.error?.code, r.json.error?.path], JSON.stringify(edge)).toEqual([3, 'input_invalid', path]);
      expect(r.json.error.message, JSON.stringify(edge)).not.toMatch(/: Invalid input$/);
    }
    expect(queueTip(repo)).toBe(at);
  });
});

describe('submit-graph: identities', () => {
  it('a node key, graph id or Work edge node key that is no identity (control character, over 256 bytes) is input_invalid at its field of the file, not a refused commit\'s schema_invalid; nothing is written', async () => {
    const { repo, file } = await appQueue();
    const at = queueTip(repo);
    const cases: Array<[unknown, string]> = [
      [{ node_key: 'k\u0001', payload: {} }, '0.node_key'],
      [{ node_key: 'k'.repeat(257), payload: {} }, '0.node_key'],
      [{ node_key: 'k', payload: {}, graph_id: 'g\u0007' }, '0.graph_id'],
      [{ node_key: 'k', payload: {}, depends_on: [{ kind: 'work', node_key: '\u001f' }] }, '0.depends_on.0.node_key'],
    ];
    for (const [node, path] of cases) {
      const r = await repoCli(repo, 'submit-graph', '--file', file('graph.json', [node]));
      expect([r.code, r.json.error?.code, r.json.error?.path], path).toEqual([3, 'input_invalid', path]);
      expect(r.json.error.message).toContain('1..256 UTF-8 bytes');
    }
    expect(queueTip(repo)).toBe(at);
  });
});

describe('submit-work --file', () => {
  it('a payload file starting with a UTF-8 BOM is input_invalid saying so (reason utf8_bom), not "unexpected character at offset 0"; nothing is written', async () => {
    const { repo, file } = await appQueue();
    const at = queueTip(repo);
    const r = await repoCli(repo, 'submit-work', '--file', file('bom.json', '\ufeff{"plan": "x"}'), '--node-key', 'bom');
    expect([r.code, r.json.error?.code, r.json.error?.details?.reason]).toEqual([3, 'input_invalid', 'utf8_bom']);
    expect(r.json.error.message).toContain('byte order mark');
    expect(queueTip(repo)).toBe(at);
  });
});

describe('simulate --workload', () => {
  it('a key given twice is workload_invalid (as in --settings), not the last value silently kept', async () => {
    const file = inputFiles('fairway-workload-');
    const settings = file('settings.json', {});
    for (const text of ['{"nodes":[{"key":"a","priority":3,"count":5,"count":0}]}', '{"nodes":[{"key":"a","priority":3,"count":2}],"nodes":[]}']) {
      const r = await runCaptured(['--json', 'simulate', '--settings', settings, '--workload', file('workload.json', text), '--grants', '3']);
      expect([r.code, r.json.error?.code], text).toEqual([3, 'workload_invalid']);
      expect(r.json.error.message, text).toMatch(/Duplicate key '(count|nodes)'/);
    }
    const ok = await runCaptured(['--json', 'simulate', '--settings', settings, '--workload', file('ok.json', '{"nodes":[{"key":"a","priority":3,"count":2}]}'), '--grants', '3']);
    expect([ok.code, ok.json.granted]).toEqual([0, 2]);
  });
});
