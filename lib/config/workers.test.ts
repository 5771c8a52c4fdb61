import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../engine/errors.ts';
import { parseWorkersFile, workerRoutes, workflowDispatchInputs, WORKERS_FILE, type RevisionSource } from './workers.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);

function source(files: Record<string, string>, ref = 'a'.repeat(40)): RevisionSource {
  return {
    ref,
    branch: 'main',
    readFile: async (p) => (Object.hasOwn(files, p) ? utf8(files[p]!) : null),
    at: () => { throw new Error('not used'); },
    listFiles: async (dir) => Object.keys(files).filter((p) => p.startsWith(`${dir}/`)).map((p) => p.slice(dir.length + 1)).filter((n) => !n.includes('/')),
  };
}

const WORKER = '"on":\n  workflow_dispatch:\n    inputs:\n      work_queue_assignment:\n        required: true\njobs: {}\n';

function codeOf(f: () => unknown): { code: string; path: unknown; message: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof ProtocolError) return { code: e.code, path: (e as unknown as { path?: unknown }).path, message: e.message };
    throw e;
  }
  throw new Error('did not throw');
}

describe('workflowDispatchInputs (minimal block-YAML reader of on.workflow_dispatch.inputs)', () => {
  it('reads gh-aw compiled "on": keys, plain on:, comments and quoted input names', () => {
    expect(workflowDispatchInputs(WORKER)).toEqual(['work_queue_assignment']);
    expect(workflowDispatchInputs('# c\nname: w\non:\n  push: {}\n  workflow_dispatch:\n    # note\n    inputs:\n      "work_queue_assignment":\n        type: string\n      other: {type: string}\n')).toEqual(['work_queue_assignment', 'other']);
    expect(workflowDispatchInputs("'on':\r\n  workflow_dispatch:\r\n    inputs:\r\n      'a''b':\r\n        type: string\r\n")).toEqual(["a'b"]);
  });

  it('does not count an input of another trigger, a nested key, or text inside a block scalar', () => {
    expect(workflowDispatchInputs('on:\n  workflow_call:\n    inputs:\n      work_queue_assignment:\n        type: string\n')).toEqual([]);
    expect(workflowDispatchInputs('on:\n  workflow_dispatch:\n    inputs:\n      x:\n        work_queue_assignment: 1\n')).toEqual(['x']);
    expect(workflowDispatchInputs('on:\n  workflow_dispatch:\n    inputs:\n      x:\n        description: |\n          work_queue_assignment:\n')).toEqual(['x']);
    expect(workflowDispatchInputs('jobs:\n  run: |\n    on:\n      workflow_dispatch:\n        inputs:\n          work_queue_assignment:\n')).toEqual([]);
  });

  it('a scalar trigger or a flow-style mapping declares no inputs', () => {
    expect(workflowDispatchInputs('on: workflow_dispatch\n')).toEqual([]);
    expect(workflowDispatchInputs('on:\n  workflow_dispatch:\n    inputs: {work_queue_assignment: {type: string}}\n')).toEqual([]);
  });
});

describe('the workers file (.github/work-queue-workers.json)', () => {
  it('rejects unknown properties, bad workflow paths, bad principals and a default naming no worker with property-specific workers_invalid', () => {
    const parse = (v: unknown) => codeOf(() => parseWorkersFile(utf8(JSON.stringify(v))));
    expect(parse({ workers: { gpu: { workflow: '.github/workflows/g.yml', principle: '1' } } })).toMatchObject({ code: 'workers_invalid', path: `${WORKERS_FILE}:workers.gpu` });
    expect(parse({ workers: { gpu: { workflow: '.github/workflows/g.yml' } }, work_queue: {} })).toMatchObject({ code: 'workers_invalid', path: WORKERS_FILE });
    expect(parse({ workers: { gpu: { workflow: 'scripts/g.yml' } } })).toMatchObject({ code: 'workers_invalid', path: `${WORKERS_FILE}:workers.gpu.workflow` });
    expect(parse({ workers: { gpu: { workflow: '.github/workflows/g.yml', principal: 'octocat' } } })).toMatchObject({ code: 'workers_invalid', path: `${WORKERS_FILE}:workers.gpu.principal` });
    expect(parse({ workers: { gpu: { workflow: '.github/workflows/g.yml', max_claims: 0 } } })).toMatchObject({ code: 'workers_invalid', path: `${WORKERS_FILE}:workers.gpu.max_claims` });
    expect(parse({ workers: {} })).toMatchObject({ code: 'workers_invalid', path: `${WORKERS_FILE}:workers` });
    expect(parse({ workers: { a: { workflow: '.github/workflows/a.yml' } }, default: 'b' })).toMatchObject({ code: 'workers_invalid', path: `${WORKERS_FILE}:default` });
    expect(codeOf(() => parseWorkersFile(utf8('{"workers":')))).toMatchObject({ code: 'workers_invalid', path: WORKERS_FILE });
  });

  it('declared workers are verified at the revision: a missing or non-worker workflow makes only that worker unavailable', async () => {
    const routes = await workerRoutes(source({
      [WORKERS_FILE]: JSON.stringify({ workers: { gpu: { workflow: '.github/workflows/gpu.yml', principal: '77', max_claims: 4 }, cpu: { workflow: '.github/workflows/cpu.yml' }, docs: { workflow: '.github/workflows/docs.yml' } }, default: 'cpu' }),
      '.github/workflows/gpu.yml': WORKER,
      '.github/workflows/docs.yml': 'on: workflow_dispatch\n',
    }), { repository: 'acme/q', principal: '5' });
    expect(routes.profiles).toEqual({ gpu: { credential_scope: 'repository', effect_scope: 'acme/q', max_claims: 4, principal: '77', ref: 'a'.repeat(40), share_keys: false, trust_domain: 'default', workflow: '.github/workflows/gpu.yml' } });
    expect(routes.unavailable).toEqual({ cpu: 'workflow_missing', docs: 'workflow_not_a_worker' });
    expect(routes.defaultProfile).toBeUndefined(); // the declared default (cpu) is unavailable
  });
});

describe('workflow discovery without a workers file', () => {
  it('a compiled .lock.yml shadows its same-named source; one worker is profile default; non-workers are ignored', async () => {
    const routes = await workerRoutes(source({
      '.github/workflows/triage.yml': WORKER.replace('work_queue_assignment', 'other'),
      '.github/workflows/worker.md': '---\non: workflow_dispatch\n---\n',
      '.github/workflows/worker.yml': 'on: push\n',
      '.github/workflows/worker.lock.yml': WORKER,
    }), { repository: 'acme/q', principal: '5' });
    expect(Object.keys(routes.profiles)).toEqual(['default']);
    expect(routes.profiles.default!.workflow).toBe('.github/workflows/worker.lock.yml');
    expect(routes.defaultProfile).toBe('default');
  });

  it('several workers are named after their files; none found leaves no default profile', async () => {
    const two = await workerRoutes(source({ '.github/workflows/b.lock.yml': WORKER, '.github/workflows/a.yaml': WORKER }), { repository: 'acme/q', principal: '5' });
    expect([Object.keys(two.profiles), two.defaultProfile]).toEqual([['a', 'b'], 'a']);
    const none = await workerRoutes(source({ '.github/workflows/ci.yml': 'on: push\n' }), { repository: 'acme/q', principal: '5' });
    expect([none.profiles, none.defaultProfile]).toEqual([{}, undefined]);
  });
});
