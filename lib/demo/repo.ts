/**
 * The embedded demo's home: a fresh local Git repository, its queue branch
 * seeded through the Publisher over the real LocalGitStore.
 *
 * It lives in the per-user cache directory (docs/console.md), never loose in
 * `/tmp`: `$XDG_CACHE_HOME/fairway/demo` (default `~/.cache/fairway/demo`),
 * `~/Library/Caches/fairway/demo` on macOS, `%LOCALAPPDATA%\fairway\demo` on
 * Windows. Each console's demo is `demo-<pid>-<random>`; it is removed when
 * the console stops, and a new start removes the leftovers of consoles that
 * are no longer running (a crash or a kill -9), so nothing accumulates.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { homedir, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Publisher } from '../publisher/publisher.ts';
import { LocalGitStore } from '../store/local-git.ts';
import { DEFAULT_BRANCH } from '../store/types.ts';
import { seedDemoDay, type DemoOptions, type DemoSummary } from './day.ts';
import { processAlive } from '../process-alive.ts';

const run = promisify(execFile);

export interface DemoRepository extends DemoSummary {
  repo: string;
  branch: string;
  /** Removes the repository (idempotent). */
  remove(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The per-user directory the demo repositories live in. */
export function demoCacheDir(env: Env = process.env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  if (env.FAIRWAY_CACHE_DIR) return join(env.FAIRWAY_CACHE_DIR, 'demo');
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'fairway', 'demo');
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'fairway', 'demo');
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'fairway', 'demo');
}

const DEMO_DIR = /^demo-([1-9][0-9]*)-[A-Za-z0-9]+$/;


/** Removes the demo repositories under `parent` whose console process is gone; returns their names. */
export async function removeStaleDemos(parent: string, isAlive: (pid: number) => boolean = processAlive): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = DEMO_DIR.exec(name);
    if (m === null || isAlive(Number(m[1]))) continue;
    await rm(join(parent, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

export async function createDemoRepository(options: DemoOptions & { parent?: string }): Promise<DemoRepository> {
  let parent = options.parent ?? demoCacheDir();
  try {
    await mkdir(parent, { recursive: true });
  } catch (e) {
    if (options.parent !== undefined) throw e;
    // No writable home (a locked-down CI user): a per-user folder under the temporary directory.
    parent = join(tmpdir(), `fairway-${userInfo().uid}`, 'demo');
    await mkdir(parent, { recursive: true });
  }
  await removeStaleDemos(parent);
  const repo = await mkdtemp(join(parent, `demo-${process.pid}-`));
  try {
    await run('git', ['init', '-q', repo]);
    const store = new LocalGitStore({ repo, branch: DEFAULT_BRANCH });
    const summary = await seedDemoDay(new Publisher(store), options);
    return { repo, branch: DEFAULT_BRANCH, ...summary, remove: () => rm(repo, { recursive: true, force: true }) };
  } catch (e) {
    await rm(repo, { recursive: true, force: true });
    throw e;
  }
}
