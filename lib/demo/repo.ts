/**
 * The embedded demo's home: a fresh local Git repository in a temp directory,
 * its queue branch seeded through the Publisher over the real LocalGitStore.
 */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Publisher } from '../publisher/publisher.ts';
import { LocalGitStore } from '../store/local-git.ts';
import { DEFAULT_BRANCH } from '../store/types.ts';
import { seedDemoDay, type DemoOptions, type DemoSummary } from './day.ts';

const run = promisify(execFile);

export interface DemoRepository extends DemoSummary {
  repo: string;
  branch: string;
}

export async function createDemoRepository(options: DemoOptions & { parent?: string }): Promise<DemoRepository> {
  const repo = await mkdtemp(join(options.parent ?? tmpdir(), 'fairway-demo-'));
  await run('git', ['init', '-q', repo]);
  const store = new LocalGitStore({ repo, branch: DEFAULT_BRANCH });
  const summary = await seedDemoDay(new Publisher(store), options);
  return { repo, branch: DEFAULT_BRANCH, ...summary };
}
