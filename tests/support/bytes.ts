/**
 * Tests replay the path users run: ledger bytes (`Uint8Array`) through the real framing,
 * exactly what `--ledger` files and every store hand to replay. Strings are encoded here,
 * so a test that builds its ledger as text still replays bytes.
 */
import { parseLedgerRecord } from '../../engine/codec/lines.ts';
import type { JsonValue } from '../../engine/json.ts';
import { appendLedger, replayLedger, type Projection, type ReplayProgress } from '../../engine/replay/index.ts';

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Cold replay of `ledger` as bytes. */
export function replayBytes(ledger: string | Uint8Array, onProgress?: ReplayProgress): Projection {
  return replayLedger(typeof ledger === 'string' ? utf8(ledger) : ledger, onProgress);
}

/** One ledger record's value, parsed as replay parses it (the canonical fast path, else the strict parser). */
export function parseLedgerLine(text: string): JsonValue {
  return parseLedgerRecord(text).value;
}

/** Incremental replay of appended bytes. */
export function appendBytes(projection: Projection, appended: string | Uint8Array): Projection {
  return appendLedger(projection, typeof appended === 'string' ? utf8(appended) : appended);
}
