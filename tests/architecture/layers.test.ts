/**
 * The layer order (docs/architecture.md, "Floors and layers"), as eslint.config.js encodes it:
 * inside engine/ a floor never imports one above it (codec → identity → schema → state →
 * scheduler → requests' and replay's floors → receipts/lifecycle/intents/issues/metrics, whose
 * folders are peers), engine/ never imports lib/ or a surface, surfaces never import each other
 * and lib/ never imports a surface. Each rule is run on a small virtual file that breaks it, so a
 * config change cannot silently switch one off; and the repository itself breaks none (CI runs
 * `npm test`, not `npm run lint`).
 */
import { join, resolve } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const LAYER_RULE = '@typescript-eslint/no-restricted-imports';

let project: ESLint;
beforeAll(() => {
  project = new ESLint({ cwd: ROOT });
});

/** The layer rule's options eslint.config.js gives `file` (undefined: no layer rule applies). */
async function layerRule(file: string): Promise<Linter.RuleEntry | undefined> {
  const config = (await project.calculateConfigForFile(join(ROOT, file))) as Linter.Config;
  return config.rules?.[LAYER_RULE];
}

/** The layer errors a virtual `file` holding `code` gets, by the rule eslint.config.js gives that path. */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const rule = await layerRule(file);
  if (rule === undefined) return [];
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{
      files: ['**/*.ts', '**/*.tsx'],
      languageOptions: { parser: tseslint.parser as Linter.Parser, parserOptions: { ecmaFeatures: { jsx: true } } },
      plugins: { '@typescript-eslint': tseslint.plugin as unknown as ESLint.Plugin },
      rules: { [LAYER_RULE]: rule },
    }],
  });
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
  expect(result!.messages.filter((m) => m.ruleId !== LAYER_RULE)).toEqual([]); // the probe parses
  return result!.messages.map((m) => m.message);
}

const broken = async (file: string, specifier: string, form = 'import type { X } from'): Promise<string[]> =>
  layerErrors(file, `${form} '${specifier}';\nexport type Y = X;\n`);

describe('engine floors', () => {
  it('the floor (engine/state) imports nothing above it, not even a type', async () => {
    expect(await broken('engine/state/probe.ts', '../scheduler/clocks.ts')).toEqual([expect.stringContaining('engine/state stands beneath')]);
    expect(await broken('engine/state/probe.ts', '../replay/projection.ts')).toEqual([expect.stringContaining('engine/state stands beneath')]);
    expect(await broken('engine/state/probe.ts', '../replay/projection.ts', 'export { X } from')).toHaveLength(1);
    expect(await broken('engine/state/probe.ts', '../schema/policy.ts')).toEqual([]);
    expect(await broken('engine/state/probe.ts', './state.ts')).toEqual([]);
  });

  it('the scheduler stands beneath replay and requests; replay beneath requests (nested folders too)', async () => {
    expect(await broken('engine/scheduler/probe.ts', '../replay/projection.ts')).toEqual([expect.stringContaining('engine/scheduler stands beneath')]);
    expect(await broken('engine/scheduler/probe.ts', '../requests/build.ts')).toHaveLength(1);
    expect(await broken('engine/scheduler/probe.ts', '../state/state.ts')).toEqual([]);
    expect(await broken('engine/replay/ops/probe.ts', '../../requests/build.ts')).toEqual([expect.stringContaining('engine/replay stands beneath')]);
    expect(await broken('engine/replay/ops/probe.ts', '../../lifecycle/ids.ts')).toHaveLength(1);
    expect(await broken('engine/replay/ops/probe.ts', '../../state/routes.ts')).toEqual([]);
    expect(await broken('engine/requests/probe.ts', '../replay/apply.ts')).toEqual([]);
  });

  it('codec, identity and schema keep their order', async () => {
    expect(await broken('engine/codec/probe.ts', '../schema/index.ts')).toEqual([expect.stringContaining('engine/codec stands beneath')]);
    expect(await broken('engine/identity/probe.ts', '../schema/common.ts')).toEqual([expect.stringContaining('engine/identity stands beneath')]);
    expect(await broken('engine/schema/probe.ts', '../identity/validate.ts')).toEqual([]);
    expect(await broken('engine/schema/probe.ts', '../state/state.ts')).toHaveLength(1);
  });

  it('the top floor\'s folders are peers: none imports another', async () => {
    expect(await broken('engine/lifecycle/probe.ts', '../intents/records.ts')).toEqual([expect.stringContaining('engine/lifecycle stands beneath engine/receipts, engine/intents')]);
    expect(await broken('engine/receipts/probe.ts', '../lifecycle/ids.ts')).toHaveLength(1);
    expect(await broken('engine/lifecycle/probe.ts', '../requests/lifecycle.ts')).toEqual([]);
  });

  it('engine/ never imports lib/, a surface, tests or bench; its ground files import no floor', async () => {
    expect(await broken('engine/codec/probe.ts', '../../lib/store/types.ts')).toEqual([expect.stringContaining('engine/ never imports lib/')]);
    expect(await broken('engine/replay/ops/probe.ts', '../../../cli/output.ts')).toEqual([expect.stringContaining('engine/ never imports lib/')]);
    expect(await broken('engine/metrics/probe.ts', '../../tests/support/bytes.ts')).toHaveLength(1);
    expect(await broken('engine/probe.ts', './codec/index.ts')).toEqual([expect.stringContaining('they import no floor')]);
    expect(await broken('engine/probe.ts', './json.ts')).toEqual([]);
  });

  it('unit tests beside the engine code may use fixtures from anywhere', async () => {
    expect(await layerRule('engine/scheduler/probe.test.ts')).toBeUndefined();
    expect(await layerRule('engine/scheduler/probe.ts')).toBeDefined();
  });
});

describe('surfaces and lib', () => {
  it('surfaces never import each other', async () => {
    expect(await broken('cli/commands/probe.ts', '../../mcp/server.ts')).toEqual([expect.stringContaining('the cli surface never imports another surface')]);
    expect(await broken('cli/commands/probe.ts', '../../components/Frame.tsx')).toHaveLength(1);
    expect(await broken('mcp/probe.ts', '../cli/output.ts')).toEqual([expect.stringContaining('the mcp surface never imports another surface')]);
    expect(await broken('mcp/probe.ts', '../app/page.tsx')).toHaveLength(1);
    expect(await broken('app/work/probe.tsx', '../../cli/output.ts')).toEqual([expect.stringContaining('the console surface never imports another surface')]);
    expect(await broken('components/probe.tsx', '../mcp/server.ts')).toHaveLength(1);
  });

  it('the console is one surface (app/ uses components/), and every surface stands on lib/ and engine/', async () => {
    expect(await broken('app/work/probe.tsx', '../../components/Frame.tsx')).toEqual([]);
    expect(await broken('cli/commands/probe.ts', '../../lib/store/types.ts')).toEqual([]);
    expect(await broken('mcp/probe.ts', '../engine/replay/index.ts')).toEqual([]);
  });

  it('lib/ never imports a surface', async () => {
    expect(await broken('lib/console/probe.ts', '../../cli/output.ts')).toEqual([expect.stringContaining('lib/ is beneath the surfaces')]);
    expect(await broken('lib/console/views/probe.ts', '../../../components/Frame.tsx')).toHaveLength(1);
    expect(await broken('lib/probe.ts', '../app/page.tsx')).toHaveLength(1);
    expect(await broken('lib/console/probe.ts', '../../engine/replay/index.ts')).toEqual([]);
  });
});

describe('the repository', () => {
  it('breaks no layer rule', async () => {
    const eslint = new ESLint({
      cwd: ROOT,
      // Only the layer rule, without type information (the typed front-door rule has its own suite).
      overrideConfig: [{ files: ['**/*.ts', '**/*.tsx'], linterOptions: { reportUnusedDisableDirectives: 'off' }, languageOptions: { parserOptions: { project: null, projectService: false } } }],
      ruleFilter: ({ ruleId }) => ruleId === LAYER_RULE,
    });
    const results = await eslint.lintFiles(['engine', 'lib', 'cli', 'mcp', 'app', 'components']);
    const broken = results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(ROOT.length + 1)}:${m.line} ${m.message}`));
    expect(broken).toEqual([]);
    expect(results.length).toBeGreaterThan(300);
  }, 120_000);
});
