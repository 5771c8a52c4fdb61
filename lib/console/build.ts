/**
 * Builds the Next.js app when the production build is missing or older than
 * its sources, so `npm start` works on a fresh clone. One `next build`
 * (Turbopack) child process; output goes to the caller's log.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SOURCE_DIRS = ['app', 'components', 'lib', 'engine', 'public'];
const SOURCE_FILES = ['next.config.mjs', 'postcss.config.mjs', 'tsconfig.next.json', 'package.json'];
const SKIP = /(^|\/)(node_modules|\.next|__snapshots__)(\/|$)|\.test\.ts$/;

function newestMtime(dir: string, path = ''): number {
  let newest = 0;
  const full = join(dir, path);
  if (!existsSync(full)) return 0;
  for (const entry of readdirSync(full, { withFileTypes: true })) {
    const rel = path === '' ? entry.name : `${path}/${entry.name}`;
    if (SKIP.test(rel)) continue;
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(dir, rel));
    else if (entry.isFile()) newest = Math.max(newest, statSync(join(dir, rel)).mtimeMs);
  }
  return newest;
}

/** True when `.next` holds a production build at least as new as every source. */
export function buildIsFresh(root: string): boolean {
  const id = join(root, '.next', 'BUILD_ID');
  if (!existsSync(id)) return false;
  const built = statSync(id).mtimeMs;
  let newest = 0;
  for (const d of SOURCE_DIRS) newest = Math.max(newest, newestMtime(root, d));
  for (const f of SOURCE_FILES) if (existsSync(join(root, f))) newest = Math.max(newest, statSync(join(root, f)).mtimeMs);
  return newest <= built;
}

export function buildConsole(root: string, log: (line: string) => void): Promise<void> {
  log('Building the console (next build); this happens once per source change…');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
      cwd: root,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tail: string[] = [];
    const collect = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') tail.push(line);
      while (tail.length > 40) tail.shift();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`next build failed (exit ${code}):\n${tail.join('\n')}`));
    });
  });
}
