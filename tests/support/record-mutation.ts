/**
 * Mutations of a ledger record's text for the canonical-form property tests
 * (engine/codec/record-spans.test.ts, engine/codec/repeat.test.ts): insert, delete or replace
 * one unit, aimed inside the operations (and so their repeated copy) half of the time.
 */

/** The unit inserted or written: JSON punctuation, escapes, digits, controls, a surrogate, DEL. */
export const MUTATIONS = [' ', '\\', '"', '0', '-', '.', 'e', ',', '}', ']', '{', '[', ':', 'u', 'A', '\ud800', '\u0000', '\u0001', '\u001f', 'x', '1', 'n', '\u007f', '\t', '\n'];

/** `text` with `unit` inserted at, deleted from, or written over position `at` (`how` mod 3). */
export function edit(text: string, at: number, unit: string, how: number): string {
  return [text.slice(0, at) + unit + text.slice(at), text.slice(0, at) + text.slice(at + 1), text.slice(0, at) + unit + text.slice(at + 1)][how % 3]!;
}

/** A mutation of record `text` at a position drawn from `at`: inside its operations when `how` is even. */
export function mutateRecord(text: string, at: number, how: number, unit: string): string {
  const ops = text.indexOf('"operations":');
  const i = how % 2 === 0 && ops >= 0 ? ops + (at % (text.length - ops)) : at % (text.length + 1);
  return edit(text, i, unit, how);
}
