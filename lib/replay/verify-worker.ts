/**
 * A worker thread of thread-verifier.ts: takes records of a posted ledger one at a time
 * (shared cursor, CAS on the record's slot), at least LEAD records ahead of replay's thread, and runs every per-record check on it
 * (engine/replay/record.ts `verifyRecord`, the function replay itself runs), until the
 * records run out or replay closes the verification.
 */
import { parentPort } from 'node:worker_threads';
import { verifyRecord } from '../../engine/replay/record.ts';
import { CLAIMED, CLOSED, CURSOR, FAILED, FREE, LEAD, passed, REACHED, READY, type VerifyJob } from './slots.ts';

function run(job: VerifyJob): void {
  // A Buffer: each record's `subarray` is one too, so its ASCII decoding wraps nothing (codec/lines.ts `bufferOf`).
  const input = Buffer.from(job.bytes, 0, job.length);
  const frames = new Int32Array(job.frames);
  const status = new Int32Array(job.status);
  const repeats = new Int32Array(job.repeats);
  const slots = { measures: new Int32Array(job.measures), payloads: new Int32Array(job.payloads), control: new Int32Array(job.control) };
  const control = new Int32Array(job.control);
  const records = status.length;
  while (Atomics.load(control, CLOSED) === 0) {
    const n = Atomics.add(control, CURSOR, 1);
    if (n >= records) return;
    const ahead = Atomics.load(control, REACHED) + LEAD;
    if (n < ahead) {
      // Too close behind or before replay's thread: move the cursor past it (unless another worker already did).
      Atomics.compareExchange(control, CURSOR, n + 1, ahead);
      continue;
    }
    if (Atomics.compareExchange(status, n, FREE, CLAIMED) !== FREE) continue;
    let slot = FAILED;
    try {
      const verified = verifyRecord(input, frames[2 * n]!, frames[2 * n + 1]!);
      if (verified !== null) slot = passed(verified, repeats, slots, n);
    } catch {
      // Replay checks this record again on its own thread: it names the error (or meets the bug) there.
    }
    Atomics.store(status, n, slot);
    Atomics.notify(status, n);
  }
}

parentPort?.on('message', (job: VerifyJob) => run(job));
parentPort?.postMessage(READY);
