/**
 * No import circles (docs/architecture.md): scripts/check-cycles.mjs builds the module graph
 * from static, type-only, re-export and literal dynamic imports, resolves relative specifiers
 * and tsconfig `paths` aliases, and reports each circle as a chain of files. `npm run lint` runs
 * it; CI runs `npm test`, so this suite also holds the repository itself to zero circles.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCircles, importSpecifiers, SOURCE_DIRS } from '../../scripts/check-cycles.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/check-cycles.mjs');

const dirs: string[] = [];
afterAll(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }); });

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fairway-cycles-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function run(root: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [SCRIPT, '--root', root, 'engine', 'lib'], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** A small engine/lib tree: state ← scheduler ← replay, and lib on top. */
const ACYCLIC = {
  'engine/state/state.ts': "export interface State { n: number }\nexport const create = (): State => ({ n: 0 });\n",
  'engine/scheduler/plan.ts': "import type { State } from '../state/state.ts';\nexport const plan = (s: State) => s.n;\n",
  'engine/replay/replay.ts': [
    "import { create } from '../state/state.ts';",
    "import { plan } from '../scheduler/plan.ts';",
    '// import { later } from "../lib/late.ts"; (a comment names no dependency)',
    "const text = `import { x } from '../lib/late.ts'`; // nor does a string",
    'export const replay = () => plan(create()) + text.length;',
    '',
  ].join('\n'),
  'lib/run.ts': "export { replay } from '../engine/replay/replay.ts';\n",
};

describe('scripts/check-cycles.mjs', () => {
  it('finds no circle in an acyclic tree (comments and strings name no dependency)', () => {
    const root = tree(ACYCLIC);
    expect(findCircles(root, ['engine', 'lib'])).toEqual([]);
    const r = run(root);
    expect(r.status).toBe(0);
    expect(r.out).toContain('no import circles');
  });

  it('reports a circle closed by a type-only import, as a chain of files, and exits 1', () => {
    const root = tree({
      ...ACYCLIC,
      // The floor reaching up for a type is still a circle (the one the floor removed).
      'engine/state/state.ts': "import type { Plan } from '../scheduler/plan.ts';\nexport interface State { n: number; last?: Plan }\nexport const create = (): State => ({ n: 0 });\n",
      'engine/scheduler/plan.ts': "import type { State } from '../state/state.ts';\nexport type Plan = number;\nexport const plan = (s: State): Plan => s.n;\n",
    });
    expect(findCircles(root, ['engine', 'lib'])).toEqual([{
      files: ['engine/scheduler/plan.ts', 'engine/state/state.ts'],
      chain: ['engine/scheduler/plan.ts', 'engine/state/state.ts', 'engine/scheduler/plan.ts'],
    }]);
    const r = run(root);
    expect(r.status).toBe(1);
    expect(r.out).toContain('1 import circle');
    expect(r.out).toContain('engine/scheduler/plan.ts → engine/state/state.ts → engine/scheduler/plan.ts');
  });

  it('follows re-exports, lazy import() and `.js` specifiers of `.ts` files, one circle per strongly connected set', () => {
    const root = tree({
      ...ACYCLIC,
      'lib/a.ts': "export * from './b.js';\n",
      'lib/b.ts': "export const load = () => import('./c.ts');\n",
      'lib/c.ts': "import { load } from './a';\nexport const c = load;\n",
      'lib/d.ts': "import './e.ts';\n",
      'lib/e.ts': "import { c } from './c.ts';\nimport './d.ts';\nexport const e = c;\n",
    });
    const circles = findCircles(root, ['engine', 'lib']);
    expect(circles).toHaveLength(2);
    expect(circles[0]).toEqual({ files: ['lib/a.ts', 'lib/b.ts', 'lib/c.ts'], chain: ['lib/a.ts', 'lib/b.ts', 'lib/c.ts', 'lib/a.ts'] });
    expect(circles[1]).toEqual({ files: ['lib/d.ts', 'lib/e.ts'], chain: ['lib/d.ts', 'lib/e.ts', 'lib/d.ts'] });
  });

  it('resolves tsconfig `paths` aliases', () => {
    const root = tree({
      ...ACYCLIC,
      'tsconfig.json': '{\n  // aliases as Next.js projects write them\n  "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["./*"] } },\n}\n',
      'lib/x.ts': "import { y } from '@/lib/y';\nexport const x = () => y;\n",
      'lib/y.ts': "import { x } from '@/lib/x.ts';\nexport const y = () => x;\n",
    });
    expect(findCircles(root, ['engine', 'lib']).map((c) => c.chain)).toEqual([['lib/x.ts', 'lib/y.ts', 'lib/x.ts']]);
  });

  it('reads every import form', () => {
    expect(importSpecifiers([
      "import a from './a.ts';",
      "import type { B } from './b.ts';",
      "import { type C, d as e } from './c.ts';",
      "import * as f from './f.ts';",
      "import './g.ts';",
      "export * from './h.ts';",
      "export { i } from './i.ts';",
      "export type { J } from './j.ts';",
      'import {',
      '  k,',
      '  l,',
      "} from './k.ts'; import m from './m.ts';",
      "const n = await import('./n.ts');",
      "/* import o from './o.ts'; */",
      "export const p = 'import q from \"./q.ts\"';",
    ].join('\n'))).toEqual(['./a.ts', './b.ts', './c.ts', './f.ts', './g.ts', './h.ts', './i.ts', './j.ts', './k.ts', './m.ts', './n.ts']);
  });

  it('the repository has no import circle in any source folder', () => {
    expect(SOURCE_DIRS).toEqual(expect.arrayContaining(['engine', 'lib', 'cli', 'mcp', 'app', 'components', 'packages']));
    expect(findCircles(ROOT)).toEqual([]);
    expect(execFileSync(process.execPath, [SCRIPT], { cwd: ROOT, encoding: 'utf8' })).toContain('no import circles');
  });
});
