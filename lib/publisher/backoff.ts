/**
 * Retry pacing for compare-and-swap publication (spec 7.8: bounded backoff for CAS conflicts;
 * docs/performance.md, "Contention").
 *
 * Every attempt, a publication's first as well as each retry, starts after a wait drawn
 * uniformly from [0, spread). The spread is the publisher's memory of contention, kept across
 * publications: each lost race doubles it and adds half an attempt's duration (so it
 * scales with how long the race window is), each commit halves it, and it is 0, so
 * no wait at all, for a publisher that does not lose races; it never exceeds 8 attempts'
 * duration (nor 2 s). A commit won under contention gives no head start: the winner's next
 * wait is drawn as the losers' are.
 *
 * The wait does not depend on how many times the current publication lost already. That is
 * deliberate: with a per-publication schedule (exponential or decorrelated-jitter backoff
 * that starts small for every new publication), a dispatcher that has just committed starts
 * its next publication at once while the losers of the last race sleep longer and longer, so
 * it keeps cutting in front of them and the same losers lose again until one exhausts its
 * attempts (the fault campaign: 9 of 200 dispatch-next calls with 8 dispatchers; measured again
 * here: 5 of 200). With one memoryless wait for every attempt, every contender is equally
 * likely to win each race, so the chance of losing 20 in a row stays negligible.
 */

/** Longest wait (ms) before an attempt. */
export const BACKOFF_CAP_MS = 2000;
/** Share of an attempt's duration a lost race adds to the spread (so a fresh process's first retries already spread out). */
const GROWTH = 0.5;
/** A commit keeps this share of the spread (with GROWTH, about two attempts per commit under contention). */
const DECAY = 0.5;
/**
 * The spread never exceeds this many attempt durations: spread over that many, the attempts of
 * that many contenders rarely overlap, and a longer wait only idles.
 */
const SPREAD_ATTEMPTS = 8;
/** Below this (ms) the spread is gone. */
const FLOOR_MS = 1;

/** A publisher's memory of contention: the spread its attempts start within. */
export class ContentionPacer {
  private spreadMs = 0;
  /** After a commit under contention: the spread the next wait is drawn from (once). */
  private nextMs: number | null = null;
  /** Moving average of attempt durations (ms); null before the first. */
  private attemptMs: number | null = null;

  constructor(private readonly random: () => number = Math.random) {}

  /** The current spread (ms); 0 when no race was lost lately. */
  get spread(): number {
    return this.spreadMs;
  }

  /** The wait before an attempt: uniform in [0, spread). */
  wait(): number {
    const spread = this.nextMs ?? this.spreadMs;
    this.nextMs = null;
    return spread === 0 ? 0 : this.random() * spread;
  }

  /** An attempt that took `ms` lost its race (or was not found after an uncertain write). */
  lost(ms: number): void {
    this.nextMs = null;
    this.spreadMs = this.widened(this.observe(ms));
  }

  /**
   * An attempt that took `ms` committed. Under contention, the next wait is drawn from the
   * spread a loser of the same race now draws from, so the winner gets no head start into the
   * next race (else it keeps winning: the capture effect of exponential backoff); the spread
   * it remembers is halved.
   */
  committed(ms: number): void {
    const attempt = this.observe(ms);
    this.nextMs = this.spreadMs === 0 ? null : this.widened(attempt);
    this.spreadMs = this.spreadMs * DECAY < FLOOR_MS ? 0 : this.spreadMs * DECAY;
  }

  private widened(attempt: number): number {
    return Math.min(BACKOFF_CAP_MS, SPREAD_ATTEMPTS * attempt, this.spreadMs * 2 + GROWTH * attempt);
  }

  private observe(ms: number): number {
    this.attemptMs = this.attemptMs === null ? ms : 0.8 * this.attemptMs + 0.2 * ms;
    return this.attemptMs;
  }
}
