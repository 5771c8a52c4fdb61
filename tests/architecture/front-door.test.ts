/**
 * The front door (docs/architecture.md): lib/ and the surfaces read the queue through
 * `Projection`, never its replay state. `fairway/front-door` (scripts/eslint-front-door.js,
 * typed) flags `p.state`, `const { state } = p` and `Projection['state']` on the engine's
 * Projection and nothing else named `state`; and the surfaces have no reach-through left
 * (CI runs `npm test`, not `npm run lint`, so this suite holds the line too).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { frontDoor } from '../../scripts/eslint-front-door.js';

const ROOT = resolve(import.meta.dirname, '../..');

function frontDoorConfig(project: string[], root: string): Linter.Config[] {
  return [{
    files: ['**/*.ts', '**/*.tsx'],
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    languageOptions: { parser: tseslint.parser as Linter.Parser, parserOptions: { project, tsconfigRootDir: root } },
    plugins: { fairway: { rules: { 'front-door': frontDoor } } },
    rules: { 'fairway/front-door': 'error' },
  }];
}

describe('fairway/front-door', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fairway-front-door-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('flags reading the replay state through a Projection, and only that', async () => {
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, allowImportingTsExtensions: true, skipLibCheck: true, types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')] },
      include: ['probe.ts'],
    }));
    const engine = join(ROOT, 'engine/replay/index.ts');
    writeFileSync(join(dir, 'probe.ts'), [
      `import type { Projection, WorkRecord } from ${JSON.stringify(engine)};`,
      'export function probe(p: Projection, maybe: Projection | null, w: WorkRecord, claim: { state: string }): unknown[] {',
      '  const { state } = p;', // 3: flagged
      '  type S = Projection[\'state\'];', // 4: flagged
      '  const s: S | null = null;',
      '  return [p.state.works, maybe?.state.tip, state, s,', // 6: two flagged
      '    w.state, claim.state, p.controls, p.work(\'x\')?.state];', // 7: Work and Claim states are not the replay state
      '}',
      '',
    ].join('\n'));
    const eslint = new ESLint({ cwd: dir, overrideConfigFile: true, overrideConfig: frontDoorConfig(['./tsconfig.json'], dir) });
    const [result] = await eslint.lintFiles(['probe.ts']);
    const flagged = result!.messages.map((m) => [m.ruleId, m.line]);
    expect(flagged).toEqual([['fairway/front-door', 3], ['fairway/front-door', 4], ['fairway/front-door', 6], ['fairway/front-door', 6]]);
  });

  it('lib/ and the surfaces have no reach-through left (lib/publisher/publisher.ts is the documented exception)', async () => {
    const eslint = new ESLint({
      cwd: ROOT,
      overrideConfigFile: true,
      overrideConfig: [
        { ignores: ['**/*.test.ts', 'lib/publisher/publisher.ts', '.next/**', 'node_modules/**'] },
        ...frontDoorConfig(['./tsconfig.json', './tsconfig.next.json'], ROOT),
      ],
    });
    const results = await eslint.lintFiles(['lib', 'cli', 'mcp', 'app', 'components']);
    const found = results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(ROOT.length + 1)}:${m.line} ${m.ruleId ?? m.message}`));
    expect(found).toEqual([]);
    expect(results.length).toBeGreaterThan(100);
  }, 240_000);
});
