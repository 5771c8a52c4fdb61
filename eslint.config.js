import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { frontDoor } from './scripts/eslint-front-door.js';

/** Debug output only through the typed, metadata-only catalogue (lib/debug, issue 15 §3). */
const DEBUG_IMPORT = { name: 'debug', message: 'log through debugEvent (lib/debug/log.ts): metadata-only events from the catalogue' };

/** Surfaces cannot name or unwrap the replay state (docs/architecture.md, "The front door"). */
const REPLAY_STATE_IMPORTS = [
  { group: ['**/engine/replay/state.ts', '**/engine/replay/index.ts'], importNames: ['ReplayState', 'createState'], message: 'the replay state is engine-internal: read the queue through Projection (docs/architecture.md, "The front door")' },
  { group: ['**/engine/replay/projection.ts'], importNames: ['stateOf', 'installColdReplay'], message: 'engine-internal: read the queue through Projection (docs/architecture.md, "The front door")' },
];

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
    // Debug output only through the typed, metadata-only catalogue (lib/debug, issue 15 §3).
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
  {
    // Maps keyed by wire or user input: `constructor`, `toString`, `__proto__` ... are ordinary
    // names (issue 18 §1). zod's record drops `__proto__`; an `in` test on a computed key answers
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
