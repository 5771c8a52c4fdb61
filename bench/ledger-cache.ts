/**
 * The on-disk cache of generated ledgers (bench/generate.ts): `bench/results/ledgers/`, one
 * `.jsonl` and its `.meta.json` (bytes, commits, generation time and stats, the envelope fill
 * report) per (generator version, target or envelope, seed). A cached file is reused as is.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EnvelopeFill, EnvelopeFillReport } from './envelope-fill.ts';
import { GENERATOR_VERSION, generateLedger, type GenerationStats } from './generate-ledger.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
export const LEDGER_CACHE = join(HERE, 'results', 'ledgers');

export interface CachedLedger {
  path: string;
  bytes: number;
  commits: number;
  /** Generation time of this call, or null when the cached file was reused. */
  generatedMs: number | null;
  /** Generation time recorded when the cached file was written. */
  originalMs: number | null;
  stats: GenerationStats | null;
}

/** Generates (or reuses) `bench/results/ledgers/gen-v{version}-{bytes}-s{seed}.jsonl`. */
export function cachedLedger(targetBytes: number, seed: number): CachedLedger {
  const base = join(LEDGER_CACHE, `gen-v${GENERATOR_VERSION}-${targetBytes}-s${seed}`);
  const path = `${base}.jsonl`;
  const metaPath = `${base}.meta.json`;
  if (existsSync(path) && existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { bytes: number; commits: number; generatedMs?: number; stats?: GenerationStats };
    return { path, bytes: meta.bytes, commits: meta.commits, generatedMs: null, originalMs: meta.generatedMs ?? null, stats: meta.stats ?? null };
  }
  mkdirSync(LEDGER_CACHE, { recursive: true });
  const stats: GenerationStats = { byKind: {}, planMs: 0, noGrant: 0 };
  const start = performance.now();
  const { text, commits } = generateLedger(targetBytes, seed, stats);
  const generatedMs = performance.now() - start;
  const bytes = Buffer.byteLength(text);
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  writeFileSync(metaPath, `${JSON.stringify({ targetBytes, seed, version: GENERATOR_VERSION, bytes, commits, generatedMs, stats }, null, 2)}\n`);
  return { path, bytes, commits, generatedMs, originalMs: generatedMs, stats };
}

/** Generates (or reuses) `bench/results/ledgers/env-v{version}-W{ledger}-R{recovery}-s{seed}.jsonl` (see EnvelopeFill). */
export function cachedEnvelopeLedger(fill: EnvelopeFill, seed: number): CachedLedger & { fill: EnvelopeFillReport } {
  const base = join(LEDGER_CACHE, `env-v${GENERATOR_VERSION}-W${fill.ledgerBytes}-R${fill.recoveryBytes}-s${seed}`);
  const path = `${base}.jsonl`;
  const metaPath = `${base}.meta.json`;
  if (existsSync(path) && existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { bytes: number; commits: number; generatedMs?: number; stats?: GenerationStats; fill: EnvelopeFillReport };
    return { path, bytes: meta.bytes, commits: meta.commits, generatedMs: null, originalMs: meta.generatedMs ?? null, stats: meta.stats ?? null, fill: meta.fill };
  }
  mkdirSync(LEDGER_CACHE, { recursive: true });
  const stats: GenerationStats = { byKind: {}, planMs: 0, noGrant: 0 };
  const report: Partial<EnvelopeFillReport> = {};
  const start = performance.now();
  const { text, commits } = generateLedger(Infinity, seed, stats, fill, report);
  const generatedMs = performance.now() - start;
  const bytes = Buffer.byteLength(text);
  // The writer already validated every commit by replay; these are the mode's own promises.
  if (report.admittedBytes === undefined) throw new Error('envelope fill: no admission reached the watermark');
  if (bytes + (report.finalReserve ?? 0) > fill.ledgerBytes + fill.recoveryBytes) throw new Error(`envelope fill: ${bytes} bytes past the all-writes bound`);
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  writeFileSync(metaPath, `${JSON.stringify({ fill: report, seed, version: GENERATOR_VERSION, bytes, commits, generatedMs, stats }, null, 2)}\n`);
  return { path, bytes, commits, generatedMs, originalMs: generatedMs, stats, fill: report as EnvelopeFillReport };
}
