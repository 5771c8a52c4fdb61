/**
 * Makes the console package, `@fairway/console` (docs/console.md "Installing the
 * console"): the console's Next.js production build in its standalone form
 * (`output: "standalone"` in next.config.mjs: the server files plus the runtime
 * files it traced, Next.js and React among them) staged with the manifest in
 * packages/console/, then `npm pack`. The traced packages travel as
 * bundleDependencies, so installing the tarball fetches nothing, builds nothing and
 * needs no devDependencies or install scripts.
 *
 * It reuses the clone's build (the one `npm start` and the browser tests serve) and
 * builds only when that is missing or older than its sources.
 *
 *   npm run pack:console [-- --pack-destination DIR]
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { buildConsole, buildNeed, type BuildNeed } from '../lib/console/build.ts';
import { CONSOLE_PACKAGE, CONSOLE_PACKAGE_FORMAT } from '../lib/console/locate.ts';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TEMPLATE = join(ROOT, 'packages', 'console');

export interface PackedConsole {
  /** Absolute path of `fairway-console-<version>.tgz`. */
  tarball: string;
  version: string;
  /** Top-level packages shipped inside it (bundleDependencies). */
  bundled: string[];
  /** Whether this call ran `next build` (false: the clone's build was current and reused). */
  built: boolean;
  buildMs: number;
  /** Tarball bytes and the unpacked size npm reports. */
  packedBytes: number;
  unpackedBytes: number;
  files: number;
}

interface Manifest {
  name: string;
  version: string;
  engines: { node: string };
  dependencies?: Record<string, string>;
  bundleDependencies?: string[];
  fairway: { console: number; build?: string };
  [field: string]: unknown;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const readText = (path: string): string | undefined => (existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined);

/**
 * Whether the standalone server is current: the build `npm start` checks, and
 * `.next/standalone` from that same build (an older build made without the
 * standalone output has none).
 */
export function standaloneNeed(root = ROOT): BuildNeed {
  const need = buildNeed(root);
  if (need !== 'fresh') return need;
  const id = readText(join(root, '.next', 'BUILD_ID'));
  return id !== undefined && id === readText(join(root, '.next', 'standalone', '.next', 'BUILD_ID')) ? 'fresh' : 'stale';
}

/** Every package.json of a package under `dir`/node_modules, nested ones included. */
function packagesUnder(dir: string): string[] {
  const found: string[] = [];
  const modules = join(dir, 'node_modules');
  if (!existsSync(modules)) return found;
  for (const name of readdirSync(modules)) {
    const dirs = name.startsWith('@') ? readdirSync(join(modules, name)).map((n) => join(modules, name, n)) : [join(modules, name)];
    for (const d of dirs) {
      if (!existsSync(join(d, 'package.json'))) continue;
      found.push(join(d, 'package.json'), ...packagesUnder(d));
    }
  }
  return found;
}

/**
 * Packages shipped in the console whose `engines.node` refuses the oldest Node the
 * console's own `engines.node` admits (empty when they agree).
 */
export function enginesRefused(stage: string, range: string): string[] {
  const oldest = semver.minVersion(range)!.version;
  return packagesUnder(stage)
    .map((path) => ({ path, pkg: readJson<{ name: string; version: string; engines?: { node?: string } }>(path) }))
    .filter(({ pkg }) => typeof pkg.engines?.node === 'string' && !semver.satisfies(oldest, pkg.engines.node))
    .map(({ path, pkg }) => `${relative(stage, path).replace(/\/package\.json$/, '')}@${pkg.version}: node ${pkg.engines!.node}`);
}

function filesUnder(dir: string, rel = ''): string[] {
  if (!existsSync(join(dir, rel))) return [];
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const path = rel === '' ? e.name : `${rel}/${e.name}`;
    return e.isDirectory() ? filesUnder(dir, path) : [path];
  });
}

/**
 * Server files of the build that its standalone copy lacks (chunks and route
 * code; source maps and traces aside). Empty when the file traces were complete:
 * a too-broad outputFileTracingExcludes glob drops chunks the routes load.
 */
export function standaloneMissing(root = ROOT): string[] {
  const built = join(root, '.next', 'server');
  const copied = join(root, '.next', 'standalone', '.next', 'server');
  return ['chunks', 'app'].flatMap((d) => filesUnder(built, d)).filter((f) => !/\.(map|nft\.json)$/.test(f) && !existsSync(join(copied, f)));
}

function dirBytes(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((n, e) => n + dirBytes(join(path, e)), 0);
}

/**
 * Lays out the package in `stage`: the standalone server's `.next` with the
 * client assets beside it, the traced node_modules, the README and a manifest
 * stamped with the root version, the exact versions shipped and the build id.
 */
export function stageConsole(root: string, stage: string): Manifest {
  const standalone = join(root, '.next', 'standalone');
  // The server files, minus the file traces (build metadata, not read at run time).
  cpSync(join(standalone, '.next'), join(stage, '.next'), { recursive: true, filter: (src) => !src.endsWith('.nft.json') });
  cpSync(join(root, '.next', 'static'), join(stage, '.next', 'static'), { recursive: true });
  if (existsSync(join(root, 'public'))) cpSync(join(root, 'public'), join(stage, 'public'), { recursive: true });
  cpSync(join(standalone, 'node_modules'), join(stage, 'node_modules'), { recursive: true });
  cpSync(join(TEMPLATE, 'README.md'), join(stage, 'README.md'));

  const template = readJson<Manifest>(join(TEMPLATE, 'package.json'));
  if (template.name !== CONSOLE_PACKAGE || template.fairway.console !== CONSOLE_PACKAGE_FORMAT) throw new Error('packages/console/package.json: unexpected name or format');
  const version = readJson<{ version: string }>(join(root, 'package.json')).version;
  const top = packagesUnder(stage).filter((p) => relative(join(stage, 'node_modules'), p).split('/').length === (relative(join(stage, 'node_modules'), p).startsWith('@') ? 3 : 2));
  const dependencies = Object.fromEntries(top.map((p) => readJson<{ name: string; version: string }>(p)).map((p) => [p.name, p.version]).sort(([a], [b]) => a!.localeCompare(b!)));
  const manifest: Manifest = {
    ...template,
    version,
    dependencies,
    bundleDependencies: Object.keys(dependencies),
    fairway: { ...template.fairway, build: readText(join(stage, '.next', 'BUILD_ID'))! },
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Builds the console when its build is not current, stages the package and packs it into `destination`. */
export async function packConsole(options: { root?: string; destination: string; log?: (line: string) => void }): Promise<PackedConsole> {
  const root = options.root ?? ROOT;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const need = standaloneNeed(root);
  const started = performance.now();
  if (need !== 'fresh') await buildConsole(root, log, need);
  const buildMs = need === 'fresh' ? 0 : performance.now() - started;
  if (standaloneNeed(root) !== 'fresh') throw new Error('next build did not leave a current .next/standalone: is output "standalone" set in next.config.mjs?');
  const missing = standaloneMissing(root);
  if (missing.length > 0) throw new Error(`.next/standalone lacks ${missing.length} server files of the build (e.g. ${missing.slice(0, 3).join(', ')}): check outputFileTracingExcludes in next.config.mjs`);

  const stage = mkdtempSync(join(tmpdir(), 'fairway-console-stage-'));
  try {
    const manifest = stageConsole(root, stage);
    const refused = enginesRefused(stage, manifest.engines.node);
    if (refused.length > 0) throw new Error(`packages shipped in the console refuse Node ${manifest.engines.node}:\n${refused.join('\n')}`);
    const report = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', resolve(options.destination)], {
      cwd: stage,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
    })) as Array<{ filename: string; size: number; unpackedSize: number; entryCount: number }>;
    const packed = report[0]!;
    log(`packed ${packed.filename}: ${(packed.size / 2 ** 20).toFixed(1)} MiB (${(packed.unpackedSize / 2 ** 20).toFixed(1)} MiB unpacked, ${packed.entryCount} files, ${(dirBytes(stage) / 2 ** 20).toFixed(1)} MiB staged)`);
    return {
      tarball: join(resolve(options.destination), packed.filename),
      version: manifest.version,
      bundled: manifest.bundleDependencies!,
      built: need !== 'fresh',
      buildMs,
      packedBytes: packed.size,
      unpackedBytes: packed.unpackedSize,
      files: packed.entryCount,
    };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--pack-destination');
  const packed = await packConsole({ destination: at > 0 ? process.argv[at + 1]! : process.cwd() });
  console.log(packed.tarball);
}
