import { describe, expect, it } from 'vitest';
import { replayProgress } from './progress.ts';

function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  return { stream: { isTTY, write: (s: string) => { written.push(s); return true; } } as unknown as NodeJS.WriteStream, written };
}

describe('replay progress on a terminal', () => {
  it('draws a progress line and clears it once the synchronous replay returns', async () => {
    const { stream, written } = fakeStream(true);
    const p = replayProgress(false, stream);
    p.onProgress!({ lines: 1000, commits: 998 });
    p.onProgress!({ lines: 2000, commits: 1999 });
    expect(written).toHaveLength(2);
    expect(written[1]).toContain('2,000 records, 1,999 commits');
    await new Promise((r) => setImmediate(r));
    expect(written[2]).toBe('\r\x1b[K');
  });

  it('is silent under --json and when stderr is not a terminal', () => {
    for (const [json, tty] of [[true, true], [false, false]] as const) {
      const { stream, written } = fakeStream(tty);
      const p = replayProgress(json, stream);
      expect(p.onProgress).toBeUndefined();
      p.done();
      expect(written).toEqual([]);
    }
  });
});
