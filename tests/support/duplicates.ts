/**
 * Exact and conflicting duplicate commit lines (spec 7.6: "Exact duplicate
 * commit lines are idempotent"; a duplicate id with different content is
 * rejected). One set of ledger variants, built from a real ledger, that every
 * read path (string, bytes, ledger file, each store, incremental replay) must
 * judge the same way.
 */
import { canonicalize } from '../../engine/codec/index.ts';
import { isProtocolError } from '../../engine/errors.ts';
import type { JsonValue } from '../../engine/json.ts';
import { summarize, type ProjectionSummary, type Projection } from '../../engine/replay/index.ts';
import { buildSmallQueue } from './small-queue.ts';

export const CONFLICTING = 'conflicting_duplicate_commit';

export interface DuplicateVariant {
  name: string;
  text: string;
  /** 'same': replays to the base ledger's projection; otherwise the expected code. */
  expect: 'same' | typeof CONFLICTING;
}

export interface AppendedVariant {
  name: string;
  /** Validated first (a cold replay). */
  prefix: string;
  /** Then appended (incremental replay). */
  appended: string;
  expect: 'same' | typeof CONFLICTING;
  /** The duplicate-free ledger whose projection an exact variant must reach. */
  equal: string;
}

export function ledgerLines(text: string): string[] {
  return text.split('\n').filter((l) => l.length > 0);
}

const join = (lines: readonly string[]): string => lines.map((l) => `${l}\n`).join('');

/** The same commit id with different content (its request id changed): not an exact duplicate. */
export function conflictingCopy(line: string): string {
  const value = JSON.parse(line) as { request: { id: string } };
  value.request.id = `${value.request.id}-other`;
  return canonicalize(value as unknown as JsonValue);
}

/** A real multi-commit ledger (the demo queue: submits, grants, dispatches, finishes, results, releases). */
export function baseLedger(): string {
  return buildSmallQueue().ledger;
}

export function duplicateVariants(ledger: string): DuplicateVariant[] {
  const l = ledgerLines(ledger);
  const n = l.length;
  const last = n - 1;
  const mid = Math.floor(n / 2);
  const insert = (at: number, line: string): string[] => [...l.slice(0, at), line, ...l.slice(at)];
  return [
    { name: 'adjacent duplicate of a mid-ledger commit', text: join(insert(mid + 1, l[mid]!)), expect: 'same' },
    { name: 'far duplicate: the second commit again at the end', text: join([...l, l[1]!]), expect: 'same' },
    { name: 'duplicate of the genesis, adjacent', text: join(insert(1, l[0]!)), expect: 'same' },
    { name: 'duplicate of the genesis, at the end', text: join([...l, l[0]!]), expect: 'same' },
    { name: 'duplicate before its causal position (the last commit right after the genesis)', text: join(insert(1, l[last]!)), expect: 'same' },
    { name: 'duplicate before everything (a late commit as the first line)', text: join([l[mid]!, ...l]), expect: 'same' },
    { name: 'every line twice, in order', text: join(l.flatMap((x) => [x, x])), expect: 'same' },
    { name: 'whole ledger twice, one after the other', text: join([...l, ...l]), expect: 'same' },
    { name: 'reversed order with duplicates of the first and last', text: join([l[last]!, ...[...l].reverse(), l[0]!]), expect: 'same' },
    { name: 'duplicate spelled with its keys in another order (the same record, spec 7.6)', text: join(insert(mid + 1, respelled(l[mid]!))), expect: 'same' },
    { name: 'duplicate with insignificant whitespace, at the end', text: join([...l, spaced(l[1]!)]), expect: 'same' },
    { name: 'the original spelled otherwise, its canonical duplicate after it', text: join([...l.slice(0, mid), respelled(l[mid]!), ...l.slice(mid)]), expect: 'same' },
    { name: 'conflicting duplicate after the original', text: join(insert(mid + 2, conflictingCopy(l[mid]!))), expect: CONFLICTING },
    { name: 'conflicting duplicate of the genesis at the end', text: join([...l, conflictingCopy(l[0]!)]), expect: CONFLICTING },
    { name: 'conflicting duplicate before its causal position', text: join(insert(1, conflictingCopy(l[last]!))), expect: CONFLICTING },
  ];
}

/** The same record with its top-level keys in reverse order (not canonical, the same decoded data). */
function respelled(line: string): string {
  return JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(line) as Record<string, unknown>).reverse()));
}

/** The same record with insignificant whitespace after its first key. */
function spaced(line: string): string {
  return line.replace('":', '": ');
}

/** Duplicates inside appended bytes (incremental `appendLedger` / `refreshLedger`). */
export function appendedVariants(ledger: string): AppendedVariant[] {
  const l = ledgerLines(ledger);
  const cut = Math.floor(l.length / 2);
  const prefix = join(l.slice(0, cut));
  const rest = l.slice(cut);
  const equal = join(l);
  return [
    { name: 'appended chunk repeats a commit of the validated prefix', prefix, appended: join([l[1]!, ...rest]), expect: 'same', equal },
    { name: 'appended chunk repeats the genesis at its end', prefix, appended: join([...rest, l[0]!]), expect: 'same', equal },
    { name: 'appended chunk repeats one of its own commits (released earlier in the same chunk)', prefix, appended: join([...rest, rest[0]!]), expect: 'same', equal },
    { name: 'appended chunk repeats one of its own commits before its causal position', prefix, appended: join([rest[rest.length - 1]!, ...rest]), expect: 'same', equal },
    { name: 'appended chunk is only a duplicate of the validated tip', prefix, appended: join([l[cut - 1]!]), expect: 'same', equal: prefix },
    { name: 'appended chunk repeats a prefix commit spelled with its keys in another order', prefix, appended: join([...rest, respelled(l[2]!)]), expect: 'same', equal },
    { name: 'appended chunk holds a conflicting copy of a prefix commit', prefix, appended: join([...rest, conflictingCopy(l[2]!)]), expect: CONFLICTING, equal },
    { name: 'appended chunk holds a conflicting copy of its own commit', prefix, appended: join([...rest, conflictingCopy(rest[0]!)]), expect: CONFLICTING, equal },
  ];
}

/** The projection's summary, or the code it was rejected with (any other exception propagates). */
export function judge(read: () => Projection): ProjectionSummary | string {
  try {
    return summarize(read());
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
}
