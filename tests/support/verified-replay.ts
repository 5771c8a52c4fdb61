/**
 * Replay as it runs with a worker thread checking records ahead (lib/replay/thread-verifier.ts),
 * in this thread: `EVERY_RECORD_VERIFIED` answers every record with `verifyRecord`, the function
 * the workers run, so the fold takes every verdict and measure (engine/replay/measures.ts) from
 * it instead of checking and measuring inline; `NOTHING_MEASURED` answers the same verdicts with
 * no measures, so the fold measures every operation itself, as it does for a commit that was not
 * read from a record. `replayBothWays` replays a ledger alone and both ways, and throws unless
 * all three give the same outcome: the same projection summary, or the same first error (code,
 * message, line, commit, operation, details). Forbidden-ledger tests judge through it, so each
 * forbidden ledger also tests that a measure taken ahead changes no verdict.
 */
import { isProtocolError, type ProtocolError } from '../../engine/errors.ts';
import { replayLedger, summarize } from '../../engine/replay/index.ts';
import type { Projection } from '../../engine/replay/projection.ts';
import { verifyRecord, type RecordVerdicts, type RecordVerifier, type VerifiedRecord } from '../../engine/replay/record.ts';

/**
 * Verifies, in this thread, the frames `pick` chooses (null for the rest, as a worker that has not
 * reached them) with `verifyRecord`, handing each verdict on through `answer`; counts the inputs
 * opened and closed and the verdicts answered. A record that fails is answered null, as a worker
 * reports it: replay checks it again and names the error.
 */
export class InlineVerifier implements RecordVerifier {
  opened = 0;
  closed = 0;
  answered = 0;

  constructor(
    private readonly pick: (frame: number) => boolean = () => true,
    private readonly answer: (verified: VerifiedRecord) => VerifiedRecord = (verified) => verified,
  ) {}

  open(input: Uint8Array, frames: readonly { start: number; end: number }[]): RecordVerdicts {
    this.opened++;
    return {
      verdictOf: (n: number): VerifiedRecord | null => {
        if (!this.pick(n)) return null;
        try {
          const verified = verifyRecord(input, frames[n]!.start, frames[n]!.end);
          if (verified === null) return null;
          this.answered++;
          return this.answer(verified);
        } catch (e) {
          if (!isProtocolError(e)) throw e;
          return null;
        }
      },
      close: (): void => {
        this.closed++;
      },
    };
  }
}

export const EVERY_RECORD_VERIFIED: RecordVerifier = new InlineVerifier();
export const NOTHING_MEASURED: RecordVerifier = new InlineVerifier(() => true, (verified) => ({ ...verified, measures: null }));

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

/** Replays `bytes` alone, with every record verified ahead, and with nothing measured ahead; answers the projection, or throws the ProtocolError, if all agree. */
export function replayBothWays(bytes: Uint8Array): Projection {
  const alone = outcome(() => replayLedger(bytes));
  const a = described(alone);
  for (const [name, verifier] of [['every record verified ahead', EVERY_RECORD_VERIFIED], ['nothing measured ahead', NOTHING_MEASURED]] as const) {
    const v = described(outcome(() => replayLedger(bytes, undefined, verifier)));
    if (a !== v) throw new Error(`replay with ${name} disagrees with replay alone:\n  alone: ${a}\n  ${name}: ${v}`);
  }
  if (alone.error !== undefined) throw alone.error;
  return alone.projection;
}

/** The ProtocolError `replayBothWays` refuses `bytes` with (all three ways agreeing); throws if the ledger is accepted. */
export function refusalBothWays(bytes: Uint8Array): ProtocolError {
  const refused = outcome(() => replayBothWays(bytes));
  if (refused.error === undefined) throw new Error('expected the ledger to be refused');
  return refused.error;
}
