/**
 * `engines` and the dependency set agree: every package the installed CLI
 * pulls in (package-lock.json entries that are neither dev-only nor optional
 * peers) runs on the oldest Node the root `engines.node` admits. (It failed
 * for @octokit/request's content-type@3.1.1, which asks for Node >= 22; the
 * root `overrides` pins content-type ^2.1.0 there.)
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', ROOT), 'utf8')) as {
  packages: Record<string, { version?: string; dev?: boolean; peer?: boolean; optional?: boolean; engines?: { node?: string } | string[] }>;
};

describe('engines and the dependency set', () => {
  it('every runtime dependency accepts the oldest Node that package.json engines.node admits', () => {
    const oldest = semver.minVersion(pkg.engines.node)!.version;
    const refused = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.dev !== true && p.peer !== true)
      .filter(([, p]) => !Array.isArray(p.engines) && p.engines?.node !== undefined && !semver.satisfies(oldest, p.engines.node))
      .map(([path, p]) => `${path}@${p.version}: node ${(p.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });
});
