/**
 * `npm start`'s first build (issue 19): the decision whether a build is
 * needed, and what the console prints while it runs. The build itself is a
 * stand-in `next` binary in a temporary root; the real `next build` is left
 * to the browser tests.
 */
import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_PROTOCOL, reportFailure } from '../../cli/output.ts';
import { buildConsole, buildIsFresh, buildLogPath, buildNeed, buildNotice } from './build.ts';

function appRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'fairway-build-'));
  mkdirSync(join(root, 'app'));
  writeFileSync(join(root, 'app', 'page.tsx'), 'export default function Page() { return null; }\n');
  writeFileSync(join(root, 'package.json'), '{}\n');
  return root;
}

function at(path: string, seconds: number): void {
  utimesSync(path, seconds, seconds);
}

function writeBuild(root: string, seconds: number): void {
  mkdirSync(join(root, '.next'), { recursive: true });
  writeFileSync(join(root, '.next', 'BUILD_ID'), 'test-build\n');
  at(join(root, '.next', 'BUILD_ID'), seconds);
}

/** A stand-in for node_modules/next/dist/bin/next: records its argv and NODE_ENV, waits, exits with code. */
function fakeNext(root: string, opts: { waitMs: number; code: number; output?: string }): string {
  const dir = join(root, 'node_modules', 'next', 'dist', 'bin');
  mkdirSync(dir, { recursive: true });
  const record = join(root, 'next-call.json');
  writeFileSync(join(dir, 'next'), [
    `require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), nodeEnv: process.env.NODE_ENV, telemetry: process.env.NEXT_TELEMETRY_DISABLED, standalone: process.env.__NEXT_PRIVATE_STANDALONE_CONFIG ?? null }));`,
    `process.stderr.write(${JSON.stringify(opts.output ?? '')});`,
    `setTimeout(() => process.exit(${opts.code}), ${opts.waitMs});`,
  ].join('\n'));
  return record;
}

describe('console build: when npm start builds, and what it prints', () => {
  it('buildNeed is "first" on a fresh clone (no .next/BUILD_ID), "fresh" when the build is newer than every source, "stale" when a source is newer', () => {
    const root = appRoot();
    expect(buildNeed(root)).toBe('first');
    expect(buildIsFresh(root)).toBe(false);
    at(join(root, 'app', 'page.tsx'), 1_000_000);
    at(join(root, 'package.json'), 1_000_000);
    writeBuild(root, 2_000_000);
    expect(buildNeed(root)).toBe('fresh');
    expect(buildIsFresh(root)).toBe(true);
    writeFileSync(join(root, 'app', 'page.test.ts'), '');
    at(join(root, 'app', 'page.test.ts'), 3_000_000);
    expect(buildNeed(root)).toBe('fresh'); // tests are not console sources
    at(join(root, 'app', 'page.tsx'), 3_000_000);
    expect(buildNeed(root)).toBe('stale');
  });

  it('the first-start notice says it is building the Next.js app, about how long, and that later starts reuse the build', () => {
    expect(buildNotice('first')).toBe('fairway console: first start: building the Next.js app (about 50 s on a 2-core machine; later starts reuse the build) ...');
    expect(buildNotice('stale')).toBe('fairway console: sources changed since the last build: rebuilding the Next.js app (about 50 s on a 2-core machine) ...');
  });

  it('buildConsole prints the notice before the build, "still building" lines while it runs, and the time taken after', async () => {
    const root = appRoot();
    const record = fakeNext(root, { waitMs: 400, code: 0 });
    const lines: string[] = [];
    await buildConsole(root, (line) => lines.push(line), 'first', { progressMs: 100 });
    expect(lines[0]).toBe(buildNotice('first'));
    expect(lines.slice(1, -1).length).toBeGreaterThanOrEqual(1);
    for (const line of lines.slice(1, -1)) expect(line).toMatch(/^fairway console: still building the Next\.js app \(\d+ s so far\) \.\.\.$/);
    expect(lines.at(-1)).toMatch(/^fairway console: built the Next\.js app in \d+ s$/);
    expect(JSON.parse(readFileSync(record, 'utf8'))).toEqual({ argv: ['build'], nodeEnv: 'production', telemetry: '1', standalone: null });
  });

  it('the build reads next.config, not the configuration an earlier console in this process handed Next (lib/console/locate.ts)', async () => {
    const root = appRoot();
    const record = fakeNext(root, { waitMs: 10, code: 0 });
    process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = '{"output":"standalone"}';
    try {
      await buildConsole(root, () => {}, 'stale', { progressMs: 0 });
    } finally {
      delete process.env.__NEXT_PRIVATE_STANDALONE_CONFIG;
    }
    expect(JSON.parse(readFileSync(record, 'utf8'))).toMatchObject({ standalone: null });
  });

  it('a failed build rejects with the build output and stops the progress lines', async () => {
    const root = appRoot();
    fakeNext(root, { waitMs: 50, code: 1, output: 'Type error: app/page.tsx\n' });
    const lines: string[] = [];
    await expect(buildConsole(root, (line) => lines.push(line), 'stale', { progressMs: 20 })).rejects.toMatchObject({ code: 'console_build_failed', message: expect.stringContaining('failed (exit 1)') as unknown });
    await expect(buildConsole(root, () => {}, 'stale', { progressMs: 0 })).rejects.toThrow('  | Type error: app/page.tsx');
    const after = lines.length;
    await new Promise((r) => setTimeout(r, 80));
    expect(lines.length).toBe(after);
    expect(lines[0]).toBe(buildNotice('stale'));
    expect(lines.some((l) => l.startsWith('fairway console: built'))).toBe(false);
  });

  it('a failed first-start build is one coded error on the CLI: what failed, the log, its last lines, what to do; no stack, exit 3', async () => {
    const root = appRoot();
    // Next's own output ends in stack frames (as the Turbopack resolution failure does).
    const output = ['> Build error occurred', 'Error: Turbopack build failed with 1 error:', 'Error: Could not find the Next.js package (next/package.json)', '    at <unknown> (Filesystem root used for resolution: /x)', '    at <unknown> (https://nextjs.org/docs)', ''].join('\n');
    fakeNext(root, { waitMs: 10, code: 1, output });
    const error: unknown = await buildConsole(root, () => {}, 'first', { progressMs: 0 }).then(() => null, (e: unknown) => e);
    const printed: string[] = [];
    const code = reportFailure({ out: (s) => printed.push(s), err: (s) => printed.push(s) }, error, false, 'console');
    expect(code).toBe(EXIT_PROTOCOL);
    expect(printed).toHaveLength(1);
    const text = printed[0]!;
    expect(text.startsWith('fairway: console_build_failed: `next build` of the console failed (exit 1)')).toBe(true);
    expect(text).not.toMatch(/internal error|^\s+at\s/m);
    expect(text).toContain(`the whole output is in ${buildLogPath(root)}`);
    expect(text).toContain('  | Error: Could not find the Next.js package (next/package.json)');
    expect(text).toContain('then run `fairway console` again');
    // The log holds the whole output, frames included.
    expect(readFileSync(buildLogPath(root), 'utf8')).toBe(output);
    const json: string[] = [];
    reportFailure({ out: (s) => json.push(s), err: (s) => json.push(s) }, error, true, 'console');
    expect(JSON.parse(json.join(''))).toMatchObject({ ok: false, error: { code: 'console_build_failed', details: { log: buildLogPath(root) } } });
  });
});
