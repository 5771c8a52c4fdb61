/**
 * Option-value parsers for commander (`.argParser` / the third argument of `.option`):
 * a bad value is a UsageError with a stable code (exit 2) while commander parses, before
 * any action runs. Closed sets of words use commander's `.choices` instead.
 */
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
