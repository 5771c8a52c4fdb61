/**
 * Views over checkpoint-rooted ledgers never throw (issue 10 §1): every read
 * command (`verify`, `replay`, `stats`, `state`, `explain` live / per Work /
 * historical, `inspect`, `trace`), in JSON and human form, through the real CLI
 * entry point on a `--ledger` file, and every console view, on checkpoint
 * roots of several shapes (tests/support/checkpoints.ts). A command may answer
 * a protocol code (exit 3, e.g. a grant whose decision state was compacted
 * away); it may never hit an internal error (runFairway fails the test on one).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayLedger } from '../../engine/replay/index.ts';
import { checkpointShapes } from '../support/checkpoints.ts';
import { runFairway } from '../support/cli.ts';
import { exerciseViews, poolsOf } from '../support/views.ts';

const dir = mkdtempSync(join(tmpdir(), 'fairway-ckpt-views-'));
const SAMPLE = 6;

/** Runs one CLI read; returns its exit code (0, or 3 with a protocol code). */
async function read(file: string, args: string[], json: boolean): Promise<number> {
  let out = '';
  const code = await runFairway([...(json ? ['--json'] : []), '--ledger', file, ...args], { out: (s) => (out += s), err: (s) => (out += s) });
  expect([0, 3], `fairway ${args.join(' ')} exited ${code}: ${out}`).toContain(code);
  if (json) expect(JSON.parse(out).ok, out).toBe(code === 0);
  return code;
}

describe('views over checkpoint-rooted ledgers never throw', () => {
  it('explain --claim-id of a grant compacted into the checkpoint root answers history_compacted naming its prior_git_sha (exit 3)', async () => {
    const shape = checkpointShapes().find((s) => s.name.startsWith('checkpoint taken mid-flight'))!;
    const file = join(dir, 'mid-flight.jsonl');
    writeFileSync(file, shape.ledger);
    const p = replayLedger(new TextEncoder().encode(shape.ledger));
    const claim = [...p.state.claims.keys()][0]!;
    let out = '';
    expect(await runFairway(['--json', '--ledger', file, 'explain', '--claim-id', claim], { out: (s) => (out += s), err: () => undefined })).toBe(3);
    const { error } = JSON.parse(out) as { error: { code: string; message: string; details: { prior_git_sha: string } } };
    expect(error.code).toBe('history_compacted');
    expect(error.details.prior_git_sha).toBe(p.state.checkpoint!.priorGitSha);
    expect(error.message).toContain(p.state.checkpoint!.priorGitSha);
  });

  for (const shape of checkpointShapes()) {
    describe(shape.name, () => {
      const file = join(dir, `${shape.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.jsonl`);
      writeFileSync(file, shape.ledger);
      const p = replayLedger(new TextEncoder().encode(shape.ledger));
      const at = p.state.commits[p.state.commits.length - 1]!.at;
      const works = [...p.works()].slice(0, SAMPLE);
      const claims = [...p.state.claims.keys()].slice(0, SAMPLE);
      const requests = [...p.state.requests.keys()].slice(0, SAMPLE);

      it('CLI: verify, replay, stats, state and live explain of every pool answer (exit 0)', async () => {
        for (const json of [true, false]) {
          for (const args of [['verify'], ['replay'], ['stats'], ['state'], ['state', '--limit', '256']]) {
            expect(await read(file, args, json)).toBe(0);
          }
          for (const pool of poolsOf(p)) {
            expect(await read(file, ['explain', '--pool', pool, '--as-of', String(at)], json)).toBe(0);
            expect(await read(file, ['explain', '--pool', pool], json)).toBe(0);
          }
        }
      });

      it('CLI: inspect and explain of each Work, inspect / trace / historical explain of each Claim and request', async () => {
        for (const json of [true, false]) {
          for (const w of works) {
            expect(await read(file, ['inspect', '--work-id', w.workId], json)).toBe(0);
            expect(await read(file, ['explain', '--pool', w.pool, '--work-id', w.workId, '--as-of', String(at)], json)).toBe(0);
          }
          for (const c of claims) {
            expect(await read(file, ['inspect', '--claim-id', c], json)).toBe(0);
            await read(file, ['trace', '--claim-id', c], json);
            await read(file, ['explain', '--claim-id', c], json);
            await read(file, ['explain', '--before-claim', c], json);
          }
          for (const r of requests) {
            await read(file, ['--request-id', r, 'trace'], json);
            await read(file, ['--request-id', r, 'explain'], json);
          }
        }
      });

      it('every CLI and console view, called directly (exerciseViews)', () => {
        exerciseViews(p, at);
        exerciseViews(p, at + 86_400_000);
      });
    });
  }
});
