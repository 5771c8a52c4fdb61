/**
 * `fairway trace` across compactions (cli/trace.ts), the real CLI on a real local Git repository:
 * the events of a request or Claim are the same before a compact, after it and after a second
 * one (each checkpoint's prior ledger is read from Git history, oldest first), and a request id
 * that only occurs as text in other commits does not pull them in.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fixtureRepo, inputFiles, repoCli } from '../support/fixture-repo.ts';

const cli = repoCli;
let repo: string;
let file: (name: string, value: unknown) => string;

beforeEach(() => {
  repo = fixtureRepo('fairway-trace-');
  file = inputFiles('fairway-trace-files-');
});

const events = (json: any): string[] => json.events.map((e: { kind: string }) => e.kind);

describe('trace before and after compaction (CLI on local Git)', () => {
  it('a request\'s and a Claim\'s events after two compactions (the Claim cancelled between them) are those of the same history never compacted', async () => {
    const plain = fixtureRepo('fairway-trace-plain-');
    const run = async (r: string, compacting: boolean): Promise<string[][]> => {
      const compact = async (): Promise<void> => {
        if (compacting) expect((await cli(r, 'compact')).json.status).toBe('committed');
      };
      expect((await cli(r, '--request-id', 's1', 'submit-work', '--file', file('a.json', { task: 's1 d1' }), '--node-key', 'a')).code).toBe(0);
      expect((await cli(r, '--request-id', 's2', 'submit-work', '--file', file('b.json', { task: 'b' }), '--node-key', 'b')).code).toBe(0);
      const granted = await cli(r, '--request-id', 'd1', 'dispatch-next', '--max-claims', '2');
      expect(granted.code, JSON.stringify(granted.json)).toBe(0);
      const claim = granted.json.claims[0].claim_id as string;
      await compact();
      expect((await cli(r, '--request-id', 'x1', 'cancel-claim', '--claim-id', claim, '--reason', 'operator_cancelled')).code).toBe(0);
      await compact();
      return [
        events((await cli(r, '--request-id', 'd1', 'trace')).json),
        events((await cli(r, 'trace', '--claim-id', claim)).json),
        events((await cli(r, '--request-id', 's1', 'trace')).json),
      ];
    };
    const never = await run(plain, false);
    expect(never).toEqual([['dispatch_next', 'cancel_work'], ['dispatch_next', 'cancel_work'], ['submit']]);
    expect(await run(repo, true)).toEqual(never);
  });
});
