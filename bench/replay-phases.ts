/**
 * bench/replay-child.ts `phases`: the per-phase split of one cold replay (see `phases`).
 */
import { readLedgerFile } from '../lib/ledger-file.ts';
import { PerformanceObserver } from 'node:perf_hooks';
import { canonicalRecordSpans } from '../engine/codec/canonical.ts';
import { decodeUtf8, frameLedger, parseLedgerRecord } from '../engine/codec/index.ts';
import type { JsonValue } from '../engine/json.ts';
import { applyCommit } from '../engine/replay/apply.ts';
import { verifyEnvelopeText, type EnvelopeVerdict } from '../engine/replay/envelope.ts';
import { measureRecord, type RecordMeasures } from '../engine/replay/measures.ts';
import type { ChainRecord } from '../engine/replay/chain.ts';
import { CausalChain, Projection, createState, replayLedger } from '../engine/replay/index.ts';
import { OPERATIONS_KINDS } from '../engine/replay/rules.ts';
import { parseQueueCommit, type QueueCommit } from '../engine/schema/index.ts';
import { cpuNow, floorOnce, gc, maxRssKB, now, round } from './replay-measure.ts';

const UNVERIFIED: EnvelopeVerdict = { fingerprintVerified: false, parametersVerified: false };

/**
 * Where cold replay spends its time: the loop of `extend` (engine/replay/replay.ts) re-run here
 * with a timer around each step, on bytes like the engine (per-record decode, nothing extra
 * retained), after one untimed warm-up replay. The phases: framing, decode of each record,
 * `JSON.parse`, the one-pass canonical check (`canonicalRecordSpans`), schema validation
 * (`parseQueueCommit`, the generated validator), the envelope text checks (fingerprint
 * SHA-256 over the line's spans, parameters binding), the record stage's measures of the operations
 * (engine/replay/measures.ts: Work ids, evidence, descriptor and payload sizes from the spans), the
 * fold (`applyCommit`, also split by request kind) and the chain/projection bookkeeping. GC
 * pauses fall in whichever step triggered them and are also reported as a total. The split is
 * also reported as milliseconds per MiB and as a multiple of the floor (read + split +
 * JSON.parse) measured in this process.
 */
export async function phases(file: string): Promise<object> {
  replayLedger(await readLedgerFile(file));
  floorOnce(file);
  gc();
  const pauses: Array<{ start: number; duration: number }> = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ start: e.startTime, duration: e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });

  const out: Record<string, number> = {};
  const add = (name: string, ms: number): void => {
    out[name] = (out[name] ?? 0) + ms;
  };
  const byKind: Record<string, { count: number; ms: number }> = {};
  const slow = { fingerprint: 0, parameters: 0, canonical: 0, schema: 0 };

  const cpuBegin = cpuNow();
  const begin = now();
  let t = begin;
  const lap = (name: string): void => {
    const n = now();
    add(name, n - t);
    t = n;
  };
  const bytes = await readLedgerFile(file);
  lap('read');
  const frames = frameLedger(bytes);
  lap('frame');

  const projection = new Projection(createState());
  const { state } = projection;
  const chain = new CausalChain<ChainRecord & { commit: QueueCommit; verdict: EnvelopeVerdict; measures: RecordMeasures | null; span: { start: number; end: number } }>(
    null,
    projection,
  );
  const chunk = projection.stageChunk(bytes);
  for (const { start, end, line } of frames) {
    const lineText = decodeUtf8(bytes.subarray(start, end));
    lap('decode');
    let value = JSON.parse(lineText) as JsonValue;
    lap('parse (JSON.parse)');
    let record = canonicalRecordSpans(lineText, end - start === lineText.length);
    let spans = record?.members ?? null;
    if (record === null) {
      slow.canonical += 1;
      ({ value, spans, record } = parseLedgerRecord(lineText, end - start)); // not proven in one pass: the engine's own path
    }
    lap('canonical (one-pass check)');
    if ((value as { version?: unknown }).version !== 3) throw new Error(`line ${line}: not version 3`);
    const alias = record?.repeats == null ? undefined : (value as { request: { parameters: Record<string, unknown> } }).request.parameters[record.repeats];
    const commit = parseQueueCommit(value, alias);
    if (commit !== value) slow.schema += 1;
    lap('validate (generated validator)');
    const verdict = spans === null ? UNVERIFIED : verifyEnvelopeText(lineText, spans, commit, record);
    lap('fingerprint + parameters (envelope text)');
    // As record.ts `parseRecord`: a proven record's measures, from its operations' spans when it is ASCII.
    const measures = spans === null ? null : measureRecord(commit, record !== null && end - start === lineText.length ? record.operations : null);
    lap('measures (record stage)');
    for (const next of chain.offer({ id: commit.id, previous: commit.previous, text: lineText, line, commit, verdict, measures, span: { start, end } })) {
      lap('chain + projection bookkeeping');
      applyCommit(state, next.commit, { line: next.line, ...next.verdict, bytes: next.span.end - next.span.start + 1, measures: next.measures });
      const kind = next.commit.request.kind;
      const ms = now() - t;
      lap('fold (applyCommit)');
      const s = (byKind[kind] ??= { count: 0, ms: 0 });
      s.count += 1;
      s.ms += ms;
      if (!next.verdict.fingerprintVerified) slow.fingerprint += 1;
      if ((kind === 'submit' || OPERATIONS_KINDS.has(kind)) && !next.verdict.parametersVerified) slow.parameters += 1;
      projection.remember(next.id, next.previous, null, chunk, next.span.start, next.span.end);
    }
    lap('chain + projection bookkeeping');
  }
  chain.finish();
  projection.accept(bytes, frames.length);
  lap('chain + projection bookkeeping');
  const end = now();
  const cpuMs = cpuNow() - cpuBegin;
  out['total (instrumented loop)'] = end - begin;

  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const e of observer.takeRecords()) pauses.push({ start: e.startTime, duration: e.duration });
  observer.disconnect();
  out['  of which GC pauses'] = pauses.filter((p) => p.start >= begin && p.start < end).reduce((sum, p) => sum + p.duration, 0);

  const tip = projection.tip;
  projection.state.works.clear(); // let the instrumented projection's state go before the comparison runs
  gc();
  const f = now();
  const floorCpu = cpuNow();
  floorOnce(file);
  const floorMs = now() - f;
  const floorCpuMs = cpuNow() - floorCpu;
  gc();
  const r = now();
  const cold = replayLedger(bytes);
  out['replayLedger (same process, uninstrumented)'] = now() - r;
  if (cold.tip !== tip) throw new Error('instrumented loop and replayLedger disagree on the tip');

  const mib = bytes.length / 2 ** 20;
  const perMiB: Record<string, number> = {};
  const overFloor: Record<string, number> = {};
  for (const k of Object.keys(out)) {
    perMiB[k] = round(out[k]! / mib);
    overFloor[k] = round(out[k]! / floorMs);
    out[k] = round(out[k]!);
  }
  for (const s of Object.values(byKind)) s.ms = round(s.ms);
  return {
    mode: 'phases', lines: frames.length, commits: cold.commitCount, bytes: bytes.length, phases: out, perMiB, overFloor,
    floorMs: round(floorMs), floorCpuMs: round(floorCpuMs), instrumentedCpuMs: round(cpuMs),
    foldByKind: byKind, slowPaths: slow, maxRssKB: maxRssKB(),
  };
}
