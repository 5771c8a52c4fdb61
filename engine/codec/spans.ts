/**
 * Member spans of one object in a canonical text, as a read-only Map from key to the value's
 * span, backed by the flat list of positions the one-pass canonical check records
 * (`canonical.ts`). Replay asks it for three or four members per record; building a Map (and a
 * key string per member) for each record cost more than the lookups, so a key is compared in
 * place and a key string or span pair is only made for a caller that asks for it.
 */
import type { MemberSpans } from './members.ts';

type Span = readonly [start: number, end: number];

/**
 * `at` holds, per member in text order, the key's start and end (inside the quotes) and the
 * value's start and end in `text`. The keys are plain (no escape), so a key's text is its value,
 * and the canonical check proved them unique.
 */
export class FlatSpans implements MemberSpans {
  constructor(
    private readonly text: string,
    private readonly at: readonly number[],
  ) {}

  get size(): number {
    return this.at.length >> 2;
  }

  get(key: string): Span | undefined {
    const { at, text } = this;
    for (let i = 0; i < at.length; i += 4) {
      const start = at[i]!;
      if (at[i + 1]! - start === key.length && text.startsWith(key, start)) return [at[i + 2]!, at[i + 3]!];
    }
    return undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  *entries(): MapIterator<[string, Span]> {
    const { at, text } = this;
    for (let i = 0; i < at.length; i += 4) yield [text.slice(at[i]!, at[i + 1]!), [at[i + 2]!, at[i + 3]!]];
  }

  *keys(): MapIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<Span> {
    for (const [, span] of this.entries()) yield span;
  }

  forEach(callback: (value: Span, key: string, map: ReadonlyMap<string, Span>) => void, thisArg?: unknown): void {
    for (const [key, span] of this.entries()) callback.call(thisArg, span, key, this);
  }

  [Symbol.iterator](): MapIterator<[string, Span]> {
    return this.entries();
  }
}
