/**
 * README "A local queue in five minutes" runs as written: the shell block between its
 * walkthrough markers, in a fresh temporary directory, with `fairway` the CLI users run
 * (bin/fairway.js). Every command must succeed (`set -e`), and the queue it leaves verifies.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'fairway-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The shell block between `<!-- walkthrough:start -->` and `<!-- walkthrough:end -->`. */
function walkthrough(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const m = /<!-- walkthrough:start -->\n```sh\n([\s\S]*?)```\n<!-- walkthrough:end -->/.exec(readme);
  if (m === null) throw new Error('README has no walkthrough block');
  return m[1]!;
}

describe('README walkthrough', () => {
  it('"A local queue in five minutes" runs as written and leaves a queue that verifies', () => {
    const script = [
      'set -euo pipefail',
      `fairway() { node ${JSON.stringify(join(ROOT, 'bin/fairway.js'))} "$@"; }`,
      walkthrough(),
      'fairway verify --json',
    ].join('\n');
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e', NO_COLOR: '1' };
    const r = spawnSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8', env });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const verified = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('\n{') + 1)) as { ok: boolean; commits: number };
    expect(verified.ok).toBe(true);
    expect(verified.commits).toBe(3); // submit-work (creating the queue), submit-graph, dispatch-next
    expect(r.stdout).toContain('granted 2/4 Claims'); // inspect and code; docs waits for code's Result
  });
});
