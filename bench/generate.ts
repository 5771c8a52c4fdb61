/**
 * Deterministic, realistic ledger generator for the replay benchmarks.
 *
 * Everything goes through the engine's `LedgerWriter`, so every commit is
 * built on the tip and validated by replay exactly like a published request.
 * The mix follows the reference-written ledgers in
 * `shared/reference/gh-aw-generated/`: a 50-tenant weighted Policy, submits of
 * 1-20 node graphs (some with Work edges) across 5 priorities, dispatch_next
 * grants of up to 64 Claims in up to 8 groups, the dispatch lifecycle
 * (started, bound), finishes (~90% completed), results, a few delivery
 * failures after reconciliation exhaustion, releases, cancel_work and a few
 * grants_paused pause/resume pairs. Seeded PRNG and a fixed clock that
 * advances per request: the same (targetBytes, seed) always gives the same
 * bytes.
 *
 * This module is the generator's entry point: its names and its command line. The mix is in
 * generate-ledger.ts, the submitted graphs and seeded draws in generated-graphs.ts, the envelope
 * mode in envelope-fill.ts, the on-disk cache in ledger-cache.ts.
 *
 *   tsx bench/generate.ts [TARGET_BYTES] [SEED] [OUT]
 *   tsx bench/generate.ts --envelope LEDGER_BYTES RECOVERY_BYTES [SEED] [OUT]
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EnvelopeFillReport } from './envelope-fill.ts';
import { generateLedger, type GenerationStats } from './generate-ledger.ts';

export { GENERATOR_VERSION, generateLedger, type GenerationStats } from './generate-ledger.ts';
export type { EnvelopeFill, EnvelopeFillReport } from './envelope-fill.ts';
export { REPOSITORY, prng } from './generated-graphs.ts';
export { LEDGER_CACHE, cachedEnvelopeLedger, cachedLedger, type CachedLedger } from './ledger-cache.ts';

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1] && process.argv[2] === '--envelope') {
  // tsx bench/generate.ts --envelope LEDGER_BYTES RECOVERY_BYTES [SEED] [OUT]
  const fill = { ledgerBytes: Number(process.argv[3] ?? 4 * 2 ** 20), recoveryBytes: Number(process.argv[4] ?? 2 ** 20) };
  const stats: GenerationStats = { byKind: {}, planMs: 0, noGrant: 0 };
  const report: Partial<EnvelopeFillReport> = {};
  const start = performance.now();
  const { text, commits } = generateLedger(Infinity, Number(process.argv[5] ?? 1), stats, fill, report);
  console.log(JSON.stringify({ bytes: Buffer.byteLength(text), commits, ms: Math.round(performance.now() - start), fill: report, stats }, null, 1));
  if (process.argv[6] !== undefined) writeFileSync(process.argv[6], text);
} else if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = Number(process.argv[2] ?? 1 << 20);
  const seed = Number(process.argv[3] ?? 1);
  const stats: GenerationStats = { byKind: {}, planMs: 0, noGrant: 0 };
  const start = performance.now();
  const { text, commits } = generateLedger(target, seed, stats);
  const ms = performance.now() - start;
  console.log(JSON.stringify({ bytes: Buffer.byteLength(text), commits, ms: Math.round(ms), stats }, null, 1));
  if (process.argv[4] !== undefined) writeFileSync(process.argv[4], text);
}
