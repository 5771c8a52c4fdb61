/**
 * Replay as it runs with a worker thread checking records ahead (lib/replay/thread-verifier.ts),
 * in this thread: `EVERY_RECORD_VERIFIED` answers every record with `verifyRecord`, the function
 * the workers run, so the fold takes every verdict and measure (engine/replay/measures.ts) from
 * it instead of checking and measuring inline. `replayBothWays` replays a ledger alone and so,
 * and throws unless both give the same outcome: the same projection summary, or the same first
 * error (code, message, line, commit, operation). Forbidden-ledger tests judge through it, so
 * each forbidden ledger also tests the path a worker's measures take.
 */
import { isProtocolError, type ProtocolError } from '../../engine/errors.ts';
import { replayLedger, summarize } from '../../engine/replay/index.ts';
import type { Projection } from '../../engine/replay/projection.ts';
import { verifyRecord, type RecordVerdicts, type RecordVerifier, type VerifiedRecord } from '../../engine/replay/record.ts';

export const EVERY_RECORD_VERIFIED: RecordVerifier = {
  open(input: Uint8Array, frames: readonly { start: number; end: number }[]): RecordVerdicts {
    return {
      verdictOf(n: number): VerifiedRecord | null {
        try {
          return verifyRecord(input, frames[n]!.start, frames[n]!.end);
        } catch (e) {
          if (!isProtocolError(e)) throw e;
          return null; // a worker reports a failed record; replay checks it again and names the error
        }
      },
      close(): void {},
    };
  },
};

type Outcome = { projection: Projection; error?: undefined } | { projection?: undefined; error: ProtocolError };

function outcome(run: () => Projection): Outcome {
  try {
    return { projection: run() };
  } catch (e) {
    if (isProtocolError(e)) return { error: e };
    throw e;
  }
}

const described = (o: Outcome): string =>
  o.error === undefined
    ? JSON.stringify({ tip: o.projection.tip, summary: summarize(o.projection) })
    : JSON.stringify({ code: o.error.code, message: o.error.message, line: o.error.line, commit: o.error.commit, operation: o.error.operation, details: o.error.details });

/** Replays `bytes` alone and with every record verified ahead; answers the projection, or throws the ProtocolError, if both agree. */
export function replayBothWays(bytes: Uint8Array): Projection {
  const alone = outcome(() => replayLedger(bytes));
  const verified = outcome(() => replayLedger(bytes, undefined, EVERY_RECORD_VERIFIED));
  const [a, v] = [described(alone), described(verified)];
  if (a !== v) throw new Error(`replay with every record verified ahead disagrees with replay alone:\n  alone:    ${a}\n  verified: ${v}`);
  if (alone.error !== undefined) throw alone.error;
  return alone.projection;
}
