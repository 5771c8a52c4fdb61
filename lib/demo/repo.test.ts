/** Where the demo repository lives and how leftovers are cleaned up (issue 14 §5: not leaked in /tmp). */
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDemoRepository, demoCacheDir, removeStaleDemos } from './repo.ts';

describe('demo repository home', () => {
  it('is the per-user cache directory of the platform (or FAIRWAY_CACHE_DIR)', () => {
    expect(demoCacheDir({}, 'linux', '/home/u')).toBe('/home/u/.cache/fairway/demo');
    expect(demoCacheDir({ XDG_CACHE_HOME: '/xdg' }, 'linux', '/home/u')).toBe('/xdg/fairway/demo');
    expect(demoCacheDir({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Caches/fairway/demo');
    expect(demoCacheDir({ LOCALAPPDATA: 'C:\\L' }, 'win32', 'C:\\U')).toContain('fairway');
    expect(demoCacheDir({ FAIRWAY_CACHE_DIR: '/c' }, 'linux', '/home/u')).toBe('/c/demo');
  });

  it('removes only the demos of consoles that are gone', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'fairway-demo-home-'));
    for (const name of ['demo-111-aaaa', 'demo-222-bbbb', 'notes', 'demo-x-1']) mkdirSync(join(parent, name));
    const removed = await removeStaleDemos(parent, (pid) => pid === 222);
    expect(removed).toEqual(['demo-111-aaaa']);
    expect(readdirSync(parent).sort()).toEqual(['demo-222-bbbb', 'demo-x-1', 'notes']);
    expect(await removeStaleDemos(join(parent, 'missing'))).toEqual([]);
  });

  it('a demo is created under its parent, named after this process, and removed by remove()', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'fairway-demo-home-'));
    mkdirSync(join(parent, 'demo-999999999-dead'));
    const demo = await createDemoRepository({ now: Date.UTC(2026, 4, 12, 15), parent });
    expect(demo.repo.startsWith(join(parent, `demo-${process.pid}-`))).toBe(true);
    expect(existsSync(join(parent, 'demo-999999999-dead'))).toBe(false); // a dead console's leftover
    expect(existsSync(join(demo.repo, '.git'))).toBe(true);
    await demo.remove();
    expect(existsSync(demo.repo)).toBe(false);
  }, 120_000);
});
