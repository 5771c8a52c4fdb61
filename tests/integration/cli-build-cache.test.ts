/**
 * The compiled-CLI cache (bin/build.js) on a small project of its own: the
 * bin reuses the build while its sources are unchanged (a touched file with the
 * same bytes included), and rebuilds when one source's bytes change, so a clone
 * never runs stale JavaScript and never transpiles at start-up otherwise.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'fairway-build-'));
mkdirSync(join(dir, 'bin'));
mkdirSync(join(dir, 'cli'));
copyFileSync(join(ROOT, 'bin', 'build.js'), join(dir, 'bin', 'build.js'));
symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
writeFileSync(join(dir, 'cli', 'word.ts'), "export const word: string = 'one';\n");
// The build's second entry (the replay worker, lib/replay/verify-worker.ts), here a stand-in.
mkdirSync(join(dir, 'lib', 'replay'), { recursive: true });
writeFileSync(join(dir, 'lib', 'replay', 'verify-worker.ts'), 'export {};\n');
writeFileSync(join(dir, 'cli', 'main.ts'), "import { word } from './word.ts';\nexport async function main(): Promise<number> { console.log(word); return 0; }\n");
writeFileSync(join(dir, 'run.mjs'), "import { entry } from './bin/build.js';\nconst { main } = await import(await entry());\nawait main();\n");

const run = () => execFileSync(process.execPath, ['run.mjs'], { cwd: dir, encoding: 'utf8' }).trim();
const built = () => (JSON.parse(readFileSync(join(dir, 'dist', 'cli.json'), 'utf8')) as { dir: string }).dir;

describe('compiled CLI cache (bin/build.js)', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds on first run, reuses the build while the sources are unchanged, rebuilds when a source changes', () => {
    expect(run()).toBe('one');
    const first = built();
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(dir, 'cli', 'word.ts'), later, later); // same bytes, new mtime: still fresh
    expect(run()).toBe('one');
    expect(built()).toBe(first);
    writeFileSync(join(dir, 'cli', 'word.ts'), "export const word: string = 'two';\n");
    expect(run()).toBe('two');
    expect(built()).not.toBe(first);
  });
});
