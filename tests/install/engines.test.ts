/**
 * `engines` and the dependency set agree, for both packages people install:
 *
 * - the CLI: every package it pulls in (package-lock.json entries that are not
 *   dev-only) runs on the oldest Node the root `engines.node` admits. (It failed
 *   for @octokit/request's content-type@3.1.1, which asks for Node >= 22; the
 *   root `overrides` pins content-type ^2.1.0 there, and since overrides do not
 *   travel with a package, the CLI tarball carries its GitHub client with those
 *   versions as bundleDependencies: tests/install/packed-cli.test.ts installs it.)
 * - the console package (packages/console, scripts/pack-console.ts): the
 *   server's runtime packages (Next.js, React, next-auth and what they need)
 *   run on the oldest Node its own `engines.node` admits, and that is no older
 *   than the CLI's (the console runs in the CLI's process).
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  bundleDependencies: string[];
};
const consolePkg = JSON.parse(readFileSync(new URL('packages/console/package.json', ROOT), 'utf8')) as { engines: { node: string } };
type LockEntry = { version?: string; dev?: boolean; peer?: boolean; optional?: boolean; engines?: { node?: string } | string[]; dependencies?: Record<string, string> };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', ROOT), 'utf8')) as { packages: Record<string, LockEntry> };

const oldest = (range: string): string => semver.minVersion(range)!.version;

function refusing(paths: Iterable<string>, range: string): string[] {
  const node = oldest(range);
  return [...paths]
    .map((path) => [path, lock.packages[path]!] as const)
    .filter(([, p]) => !Array.isArray(p.engines) && p.engines?.node !== undefined && !semver.satisfies(node, p.engines.node))
    .map(([path, p]) => `${path}@${p.version}: node ${(p.engines as { node: string }).node}`);
}

/** Where Node finds `name` from the package at lockfile path `from` (nested node_modules first). */
function resolve(from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const path = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (lock.packages[path] !== undefined) return path;
    if (dir === '') return undefined;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i < 0 ? '' : dir.slice(0, i);
  }
}

/** The lockfile paths of `roots` and everything they depend on (optional and peer dependencies aside). */
function closure(roots: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = roots.map((r) => resolve('', r)!);
  while (todo.length > 0) {
    const path = todo.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    for (const dep of Object.keys(lock.packages[path]!.dependencies ?? {})) {
      const found = resolve(path, dep);
      if (found !== undefined) todo.push(found);
    }
  }
  return seen;
}

describe('engines and the dependency set', () => {
  it('every runtime dependency accepts the oldest Node that package.json engines.node admits', () => {
    const runtime = Object.entries(lock.packages).filter(([path, p]) => path !== '' && p.dev !== true && p.peer !== true).map(([path]) => path);
    expect(refusing(runtime, pkg.engines.node)).toEqual([]);
  });

  it('the CLI tarball bundles only its own dependencies, and the GitHub client whose pinned versions npm would not otherwise install', () => {
    for (const name of pkg.bundleDependencies) expect(Object.keys(pkg.dependencies), name).toContain(name);
    expect(pkg.bundleDependencies).toEqual(expect.arrayContaining(['@octokit/rest', '@octokit/plugin-retry', '@octokit/plugin-throttling']));
    // The pin the bundle exists for: a fresh resolution would take content-type@3 (Node >= 22).
    expect(lock.packages['node_modules/@octokit/request/node_modules/content-type']?.version).toMatch(/^2\./);
  });

  it('the console package: its server runtime accepts the oldest Node its engines.node admits, which is no older than the CLI\'s', () => {
    const server = closure(['next', 'react', 'react-dom', 'next-auth']);
    expect(server.has('node_modules/next')).toBe(true);
    expect(refusing(server, consolePkg.engines.node)).toEqual([]);
    expect(semver.gte(oldest(consolePkg.engines.node), oldest(pkg.engines.node))).toBe(true);
    // Next.js itself sets the floor: a looser console range would let npm install it where it cannot run.
    expect(refusing(['node_modules/next'], pkg.engines.node)).not.toEqual([]);
  });
});
