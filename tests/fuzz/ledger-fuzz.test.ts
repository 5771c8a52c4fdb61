/**
 * Replay never crashes (issue 10 §1): the seeded fuzzer (./fuzzer.ts) over the reference
 * fixture ledger (`canonical-prefix.json` `canonical`), checkpoint roots (checkpoint.json and
 * one built from canonical-prefix; every view runs on each accepted variant), and a prefix of a
 * reference-written ledger (`gh-aw-generated/ledger-1m.jsonl`), all as bytes through the real
 * framing. Each variant replays to the projection of a semantically equal ledger, or is
 * rejected with a ProtocolError carrying a specific code; zero other exceptions.
 *
 * FUZZ_SEED and FUZZ_RUNS override the defaults for longer runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import type { JsonValue } from '../../engine/json.ts';
import { buildCheckpointCommit } from '../../engine/replay/checkpoint.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { describeReference } from '../support/reference.ts';
import { checkpointOf } from '../support/checkpoints.ts';
import { baseLedger, ledgerLines } from '../support/duplicates.ts';
import { ln, report, run } from './fuzzer.ts';

const FIXTURES = new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/', import.meta.url);
const GENERATED = new URL('../../../shared/reference/gh-aw-generated/', import.meta.url);
const PREFIX = new URL('canonical-prefix.json', FIXTURES);
const CHECKPOINT = new URL('checkpoint.json', FIXTURES);
const LEDGER_1M = new URL('ledger-1m.jsonl', GENERATED);
const present = existsSync(PREFIX) && existsSync(CHECKPOINT) && existsSync(LEDGER_1M);
const SEED = Number(process.env.FUZZ_SEED ?? 20261201);
const encoder = new TextEncoder();

/** Variants per source; FUZZ_RUNS scales all of them (default 11,000 in total). */
const TOTAL = Number(process.env.FUZZ_RUNS ?? 10_000);
/** Generous: the budget is 10,000 variants in well under a minute on an idle 2-core runner. */
const TIMEOUT = 240_000;

describeReference(present, 'ledger fuzz: every variant is replayed or rejected with a specific code, zero other exceptions', () => {
  const canonical = present ? (JSON.parse(readFileSync(PREFIX, 'utf8')) as { canonical: string }).canonical.split('\n').filter((l) => l.length > 0) : [];
  const written = present ? readFileSync(LEDGER_1M, 'utf8').split('\n').filter((l) => l.length > 0).slice(0, Number(process.env.FUZZ_1M_LINES ?? 200)) : [];
  const started = performance.now();
  let variants = 0;

  it(`canonical-prefix.json canonical (17 commits): ${Math.round(TOTAL * 0.75)} variants`, () => {
    const { findings } = run('canonical-prefix', canonical, Math.round(TOTAL * 0.75), SEED);
    variants += Math.round(TOTAL * 0.75);
    expect(findings, report(findings)).toEqual([]);
  }, TIMEOUT);

  it(`checkpoint roots (checkpoint.json checkpoint and genesis_checkpoint, a checkpoint of canonical-prefix): ${Math.round(TOTAL * 0.07)} variants each, every view run on each accepted one`, () => {
    const fixture = JSON.parse(readFileSync(CHECKPOINT, 'utf8')) as { checkpoint: JsonValue[]; genesis_checkpoint: JsonValue[] };
    const prefix = replayLedger(encoder.encode(ln(canonical)));
    const last = JSON.parse(canonical[canonical.length - 1]!) as { at: number; actor: { repository: string } };
    const built = buildCheckpointCommit(prefix, {
      priorGitSha: 'b'.repeat(40),
      actor: { role: 'administrator', principal: '1', repository: last.actor.repository } as never,
      at: last.at,
    });
    const roots = [canonicalize(fixture.checkpoint[0]!), canonicalize(fixture.genesis_checkpoint[0]!), canonicalize(built as unknown as JsonValue)];
    const findings = roots.flatMap((root, i) => run(`checkpoint root ${i}`, [root], Math.round(TOTAL * 0.07), SEED + 10 + i, true).findings);
    variants += 3 * Math.round(TOTAL * 0.07);
    expect(findings, report(findings)).toEqual([]);
  }, TIMEOUT);

  it(`a Fairway-written ledger (the demo queue: combined genesis, grants, dispatches, releases) and a mid-flight checkpoint of it: ${Math.round(TOTAL * 0.05)} variants each`, () => {
    const demo = ledgerLines(baseLedger());
    const midFlight = ledgerLines(checkpointOf(ln(demo.slice(0, 5))));
    const findings = [
      ...run('demo queue', demo, Math.round(TOTAL * 0.05), SEED + 20).findings,
      ...run('mid-flight checkpoint', midFlight, Math.round(TOTAL * 0.05), SEED + 21, true).findings,
    ];
    variants += 2 * Math.round(TOTAL * 0.05);
    expect(findings, report(findings)).toEqual([]);
  }, TIMEOUT);

  it(`ledger-1m.jsonl (reference-written) first ${Number(process.env.FUZZ_1M_LINES ?? 200)} commits: ${Math.round(TOTAL * 0.04)} variants`, () => {
    const { findings } = run('ledger-1m prefix', written, Math.round(TOTAL * 0.04), SEED + 1);
    variants += Math.round(TOTAL * 0.04);
    expect(findings, report(findings)).toEqual([]);
    console.log(`ledger fuzz: ${variants} variants in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    expect(variants).toBeGreaterThanOrEqual(Math.min(TOTAL, 10_000) - 3);
  }, TIMEOUT);
});
