/**
 * Option-value parsers for commander (`.argParser` / the third argument of `.option`):
 * a bad value is a UsageError with a stable code (exit 2) while commander parses, before
 * any action runs. Closed sets of words use commander's `.choices` instead.
 */
import { Option } from 'commander';
import { utf8ByteLength } from '../engine/codec/json.ts';
import { isIdentity, isRevision } from '../engine/identity/validate.ts';
import { UsageError } from './output.ts';

/** An integer in `min..max` (code `option_invalid` unless given). */
export function intIn(name: string, min: number, max: number, code = 'option_invalid') {
  return (v: string): number => {
    const n = /^-?\d+$/.test(v.trim()) ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`${name} must be an integer ${min}..${max}, not ${JSON.stringify(v)}`, code);
    return n;
  };
}

/** A priority class 1..5 (`priority_invalid`). */
export const priorityArg = intIn('--priority', 1, 5, 'priority_invalid');

/** A value as a usage error quotes it: JSON, a long one cut short with its size. */
function shown(v: string): string {
  return v.length <= 64 ? JSON.stringify(v) : `${JSON.stringify(v.slice(0, 32))}... (${utf8ByteLength(v)} UTF-8 bytes)`;
}

/**
 * An identity (`option_invalid` unless given): replay's own rule for request ids, node keys
 * and every other id (engine/identity `isIdentity`: 1..256 UTF-8 bytes, no ASCII control
 * characters), so a bad value is the flag's usage error, not a refused commit.
 */
export function identityArg(name: string, code = 'option_invalid') {
  return (v: string): string => {
    if (!isIdentity(v)) throw new UsageError(`${name} must be 1..256 UTF-8 bytes without ASCII control characters, not ${shown(v)}`, code);
    return v;
  };
}

/** An immutable Git revision, 40 or 64 lowercase hex digits (engine/identity `isRevision`; `option_invalid` unless given). */
export function revisionArg(name: string, code = 'option_invalid') {
  return (v: string): string => {
    if (!isRevision(v)) throw new UsageError(`${name} must be an immutable Git revision: a full commit SHA of 40 or 64 lowercase hex digits, not ${shown(v)}`, code);
    return v;
  };
}

/** The global `--request-id`: an identity (a mutation's request id, or a lookup's prefix of one). */
export const requestIdArg = identityArg('--request-id');


/** The largest time a JavaScript Date holds (ECMA-262: 8.64e15 ms after the epoch). */
const MAX_DATE_MS = 8_640_000_000_000_000;

/**
 * `--as-of <ms>`, the decision time of every read command that evaluates readiness (`next`,
 * `explain`, `stats`, `state`, `inspect`): one definition, so the flag reads the same in
 * every --help and completion. Its value is parsed by `parseAsOf` in the action.
 */
export function asOfOption(): Option {
  return new Option('--as-of <ms>', 'decision time in Unix milliseconds (default: now); use the commit `at` to reproduce a past decision');
}

/**
 * An `--as-of` value (`now` when absent): Unix milliseconds, up to the last instant a Date can
 * hold (what the views print as an ISO time); anything else is `invalid_as_of` (exit 2).
 */
export function parseAsOf(raw: string | undefined, now: number): number {
  if (raw === undefined) return now;
  const n = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n > MAX_DATE_MS) throw new UsageError(`--as-of must be Unix milliseconds, an integer 0..${MAX_DATE_MS}, not ${JSON.stringify(raw)}`, 'invalid_as_of');
  return n;
}
