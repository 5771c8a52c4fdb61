// Compiles the CLI once: esbuild bundles cli/main.ts (TypeScript) into plain
// ES modules under dist/, one chunk per lazily imported part (console, MCP,
// TUI, ...), with the npm packages it runs compiled in (a few lazily loaded
// ones aside: EXTERNAL below), so start-up reads a few files instead of
// resolving hundreds, and an installed CLI runs `fairway tui` with the ink and
// React its chunk carries. `npm ci` and `npm pack`
// run it through the `prepare` script; `bin/fairway.js` runs it again only
// when a source file it was built from has changed (checked by size and
// mtime, then by SHA-256), so the CLI never transpiles TypeScript at run time.
import { createHash } from 'node:crypto';
import { builtinModules } from 'node:module';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(ROOT, 'dist');
export const MANIFEST = join(DIST, 'cli.json');
/** Bump when the build options change: every earlier build is then stale. */
const BUILD_FORMAT = 5;

/**
 * npm packages stay outside the build only when they are loaded lazily by one
 * command and must keep their own module identity: the MCP SDK (the `mcp`
 * command), prom-client (`stats --format prometheus`), and esbuild (this
 * script). Everything else (commander, zod, the GitHub client, ink and React
 * for the TUI, ...) is compiled in: one file per lazily loaded part instead of
 * hundreds of package files to resolve and read at every start.
 */
const EXTERNAL = /^(@modelcontextprotocol\/sdk|prom-client|esbuild)(\/|$)/;
/**
 * Optional imports of bundled packages that are never installed: React
 * DevTools (ink, only with DEV=true), the native speed-ups `ws` tries, and
 * `supports-color` (debug tries it in a try/catch).
 */
const NEVER = new Set(['react-devtools-core', 'bufferutil', 'utf-8-validate', 'supports-color']);
/**
 * The TUI's ink and React are devDependencies: a checkout installed with
 * `npm ci --omit=dev` (the Action) compiles without them, leaving them
 * external; `fairway tui` there answers tui_not_installed.
 */
const TUI_PACKAGES = /^(ink|react)(\/|$)/;

/**
 * Leaves built-ins, EXTERNAL and NEVER imports external; compiles bundled
 * packages as production code (React picks its build by NODE_ENV). Bundled
 * CommonJS code may `require` Node built-ins: each chunk gets a real `require`
 * (the banner) for that.
 */
/** A read of process.env.NODE_ENV (not NODE_ENV_SOMETHING, not an assignment to it). */
const NODE_ENV_READ = /(?<![\w$.])process\.env\.NODE_ENV(?![\w$])(?!\s*(?:=(?!=)|\?\?=|\|\|=|&&=))/g;

const externals = {
  name: 'fairway-externals',
  setup(b) {
    const tuiInstalled = exists(join(ROOT, 'node_modules', 'ink', 'package.json')) && exists(join(ROOT, 'node_modules', 'react', 'package.json'));
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || builtinModules.includes(args.path) || NEVER.has(args.path) || EXTERNAL.test(args.path)) return { path: args.path, external: true };
      if (!tuiInstalled && TUI_PACKAGES.test(args.path)) return { path: args.path, external: true };
      return undefined;
    });
    b.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replace(NODE_ENV_READ, '"production"'),
      loader: 'js',
    }));
  },
};

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

export function readManifest() {
  try {
    const m = JSON.parse(readFileSync(MANIFEST, 'utf8'));
    return m.format === BUILD_FORMAT ? m : undefined;
  } catch {
    return undefined;
  }
}

/** True when every source the build read is unchanged (or no sources are shipped at all). */
export function isFresh(manifest) {
  const entries = Object.entries(manifest.inputs);
  // A packed install ships the compiled build and not the CLI's TypeScript entry: nothing to check.
  if (!exists(join(ROOT, 'cli', 'main.ts'))) return true;
  for (const [rel, [size, mtimeMs, hash]] of entries) {
    let st;
    try {
      st = statSync(join(ROOT, rel));
    } catch {
      return false;
    }
    if (st.size === size && st.mtimeMs === mtimeMs) continue;
    if (sha256(readFileSync(join(ROOT, rel))) !== hash) return false;
  }
  return true;
}

function exists(path) {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Builds into a fresh directory, then publishes it by renaming the manifest into place (safe under concurrent starts). */
export async function build({ clean = false } = {}) {
  const { build: esbuild } = await import('esbuild');
  mkdirSync(DIST, { recursive: true });
  const tmp = join(DIST, `tmp-${process.pid}-${Date.now()}`);
  const result = await esbuild({
    absWorkingDir: ROOT,
    // The replay verification worker (lib/replay/verify-worker.ts) is an entry of its own, beside
    // the chunks: thread-verifier.ts starts it as ./verify-worker.js from whichever chunk holds it.
    entryPoints: { main: 'cli/main.ts', 'verify-worker': 'lib/replay/verify-worker.ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [externals],
    banner: { js: "import { createRequire as __fairwayRequire } from 'node:module'; const require = __fairwayRequire(import.meta.url);" },
    outdir: tmp,
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = {};
  // The build's own script is an input too: changing how the CLI is built rebuilds it. A bundled
  // package counts by its package.json (its version), not file by file: start-up checks fewer files.
  const sources = new Set(['bin/build.js']);
  for (const rel of Object.keys(result.metafile.inputs)) sources.add(rel.replace(/^(.*node_modules\/(@[^/]+\/)?[^/]+)\/.*$/, '$1/package.json'));
  for (const rel of [...sources].sort()) {
    const st = statSync(join(ROOT, rel));
    inputs[rel] = [st.size, st.mtimeMs, sha256(readFileSync(join(ROOT, rel)))];
  }
  const id = sha256(JSON.stringify(Object.entries(inputs).map(([rel, v]) => [rel, v[2]]))).slice(0, 16);
  const dir = `cli-${id}`;
  try {
    renameSync(tmp, join(DIST, dir));
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // the same build is already in place
  }
  // Which output file each source module that is loaded on its own (the entry, lazy imports) became.
  const modules = {};
  for (const [out, o] of Object.entries(result.metafile.outputs)) if (o.entryPoint !== undefined) modules[o.entryPoint] = out.slice(out.lastIndexOf('/') + 1);
  const manifest = { format: BUILD_FORMAT, dir, inputs, modules };
  const tmpManifest = `${MANIFEST}.${process.pid}`;
  writeFileSync(tmpManifest, JSON.stringify(manifest));
  renameSync(tmpManifest, MANIFEST);
  prune(dir, clean);
  return manifest;
}

/**
 * Keeps the current build and the two newest others (a process started on one
 * may still load its lazy chunks); `clean` (packing) keeps only the current one.
 */
function prune(current, clean) {
  const now = Date.now();
  const old = readdirSync(DIST)
    .filter((n) => (n.startsWith('cli-') || n.startsWith('tmp-')) && n !== current)
    .map((n) => ({ n, t: statSync(join(DIST, n)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const { n, t } of clean ? old : old.slice(2)) if (clean || now - t > 10 * 60_000) rmSync(join(DIST, n), { recursive: true, force: true });
}

/** The entry module of a current build, building first when needed. */
export async function entry() {
  let manifest = readManifest();
  if (manifest === undefined || !exists(join(DIST, manifest.dir, 'main.js')) || !isFresh(manifest)) manifest = await build();
  return join(DIST, manifest.dir, 'main.js');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const m = await build({ clean: process.argv.includes('--clean') });
  console.error(`fairway: compiled the CLI into dist/${m.dir} (${Object.keys(m.inputs).length} sources)`);
}
