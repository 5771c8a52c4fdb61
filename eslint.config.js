import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { frontDoor } from './scripts/eslint-front-door.js';

/** Debug output only through the typed, metadata-only catalogue (lib/debug, docs/observability.md "Debug logging"). */
const DEBUG_IMPORT = { name: 'debug', message: 'log through debugEvent (lib/debug/log.ts): metadata-only events from the catalogue' };

/** Surfaces cannot name or unwrap the replay state (docs/architecture.md, "The front door"). */
const REPLAY_STATE_IMPORTS = [
  { group: ['**/engine/state/state.ts', '**/engine/replay/index.ts'], importNames: ['ReplayState', 'createState'], message: 'the replay state is engine-internal: read the queue through Projection (docs/architecture.md, "The front door")' },
  { group: ['**/engine/state/source.ts', '**/engine/replay/projection.ts'], importNames: ['stateOf', 'StateHolder', 'installColdReplay'], message: 'engine-internal: read the queue through Projection (docs/architecture.md, "The front door")' },
  { group: ['**/engine/state/mutate.ts', '**/engine/state/ready-index.ts'], message: 'engine-internal state maintenance: read the queue through Projection (docs/architecture.md, "The front door")' },
];

/**
 * The engine's floors, bottom-up (docs/architecture.md, "Floors and layers"): a module imports its
 * own floor and the floors beneath it, never one above; the top floor's folders are peers that do
 * not import each other. engine/errors.ts and engine/json.ts are the ground (they import no floor).
 * identity sits beneath schema (the closed schemas check fields with identity's grammar,
 * identity/validate.ts); requests sits above replay (a request builder validates its candidate
 * by applying it with replay's fold, requests/build.ts), and nothing in replay builds requests.
 */
const ENGINE_FLOORS = [
  ['codec'],
  ['identity'],
  ['schema'],
  ['state'],
  ['scheduler'],
  ['replay'],
  ['requests'],
  ['receipts', 'lifecycle', 'intents', 'issues', 'metrics'],
];

/** The surfaces: each its own door onto lib/ and engine/ (app/ and components/ are the one console). */
const SURFACES = { cli: ['cli'], mcp: ['mcp'], console: ['app', 'components'] };
const ALL_SURFACES = Object.values(SURFACES).flat();

/** A specifier climbing out of the importing folder into one of `folders` (imports inside the tree are relative). */
const into = (folders) => `^(\\.\\./)+(${folders.join('|')})/`;

/** Layer rules run as @typescript-eslint/no-restricted-imports, so they add to (not replace) the core rule's purity, debug and front-door restrictions. */
const LAYER_RULE = '@typescript-eslint/no-restricted-imports';

function engineFloorConfigs() {
  const configs = ENGINE_FLOORS.flatMap((floor, level) => floor.map((folder) => {
    const above = [...ENGINE_FLOORS.slice(level + 1).flat(), ...floor.filter((peer) => peer !== folder)];
    const patterns = [{ regex: into(['lib', ...ALL_SURFACES, 'tests', 'bench']), message: 'engine/ never imports lib/, a surface, tests or bench (docs/architecture.md, "Floors and layers")' }];
    if (above.length > 0) {
      patterns.unshift({ regex: into(above), message: `engine/${folder} stands beneath ${above.map((f) => `engine/${f}`).join(', ')}: a floor never imports one above it or a peer (docs/architecture.md, "Floors and layers")` });
    }
    return { files: [`engine/${folder}/**/*.ts`], ignores: ['**/*.test.ts'], rules: { [LAYER_RULE]: ['error', { patterns }] } };
  }));
  configs.push({
    files: ['engine/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { [LAYER_RULE]: ['error', { patterns: [{ regex: '^(\\./[^/]+/|\\.\\./)', message: 'engine/errors.ts and engine/json.ts are the ground: they import no floor (docs/architecture.md, "Floors and layers")' }] }] },
  });
  return configs;
}

/** Surfaces never import each other; lib/ never imports a surface. */
function surfaceConfigs() {
  const configs = Object.entries(SURFACES).map(([name, folders]) => {
    const others = ALL_SURFACES.filter((f) => !folders.includes(f));
    return {
      files: folders.flatMap((f) => [`${f}/**/*.ts`, `${f}/**/*.tsx`]),
      ignores: ['**/*.test.ts', '**/*.test.tsx'],
      rules: { [LAYER_RULE]: ['error', { patterns: [{ regex: into(others), message: `the ${name} surface never imports another surface (${others.join('/, ')}/): share code through lib/ or engine/ (docs/architecture.md, "Floors and layers")` }] }] },
    };
  });
  configs.push({
    files: ['lib/**/*.ts', 'lib/**/*.tsx'],
    ignores: ['**/*.test.ts'],
    rules: { [LAYER_RULE]: ['error', { patterns: [{ regex: into(ALL_SURFACES), message: 'lib/ is beneath the surfaces: it never imports cli/, mcp/, app/ or components/ (docs/architecture.md, "Floors and layers")' }] }] },
  });
  return configs;
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'bench/results/**', '.next/**', 'coverage/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests parse CLI JSON output loosely on purpose.
    files: ['**/*.test.ts', 'tests/**/*.ts', 'e2e/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['engine/**/*.ts'],
    ignores: ['engine/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process', 'net', 'node:net', 'http', 'node:http', 'https', 'node:https', 'os', 'node:os'],
      }],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'engine/ is pure: time arrives as an argument' },
        { object: 'process', property: 'env', message: 'engine/ is pure: no environment reads' },
      ],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval'],
    },
  },
  {
    // Debug output only through the typed, metadata-only catalogue (lib/debug, docs/observability.md "Debug logging").
    files: ['**/*.ts', '**/*.tsx'],
    ignores: ['lib/debug/log.ts', 'engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [DEBUG_IMPORT] }],
    },
  },
  {
    // The front door (docs/architecture.md): lib/ and the surfaces read the queue through
    // Projection, never its replay state. The Publisher builds candidates on the state until
    // the one write path lands (lib/publisher/publisher.ts, the documented exception).
    files: ['lib/**/*.ts', 'cli/**/*.ts', 'mcp/**/*.ts', 'app/**/*.ts', 'app/**/*.tsx', 'components/**/*.ts', 'components/**/*.tsx'],
    ignores: ['**/*.test.ts', 'lib/publisher/publisher.ts'],
    languageOptions: { parserOptions: { project: ['./tsconfig.json', './tsconfig.next.json'], tsconfigRootDir: import.meta.dirname } },
    plugins: { fairway: { rules: { 'front-door': frontDoor } } },
    rules: {
      'fairway/front-door': 'error',
      'no-restricted-imports': ['error', { paths: [DEBUG_IMPORT], patterns: REPLAY_STATE_IMPORTS }],
    },
  },
  {
    files: ['lib/debug/log.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: REPLAY_STATE_IMPORTS }] },
  },
  // The layer order (docs/architecture.md, "Floors and layers"); tests/architecture/layers.test.ts
  // runs these objects on files that break each rule. Static imports only: the one lazy
  // cross-surface load, cli/commands/mcp.ts starting mcp/server.ts (`fairway mcp` is how the MCP
  // server runs), is an `import()`; scripts/check-cycles.mjs still sees lazy loads.
  ...engineFloorConfigs(),
  ...surfaceConfigs(),
  {
    // Maps keyed by wire or user input: `constructor`, `toString`, `__proto__` ... are ordinary
    // names. zod's record drops `__proto__`; an `in` test on a computed key answers
    // from Object.prototype. Use ownRecord / ownGet / Object.hasOwn (engine/schema/record.ts).
    files: ['engine/**/*.ts', 'lib/**/*.ts', 'cli/**/*.ts', 'mcp/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: "CallExpression[callee.object.name='z'][callee.property.name='record']", message: 'z.record drops __proto__ members: use ownRecord (engine/schema/record.ts)' },
        { selector: "BinaryExpression[operator='in'][left.type!='Literal']", message: 'an `in` test on a computed key sees Object.prototype members: use Object.hasOwn / ownGet' },
      ],
    },
  },
);
