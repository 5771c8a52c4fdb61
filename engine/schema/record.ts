/**
 * Records keyed by wire or user input (pools, profiles, weights, producers, payload members).
 * zod's `z.record` drops a `__proto__` member, and a plain object answers `constructor` or
 * `toString` from `Object.prototype`; an `ownRecord` parses into a null-prototype object holding
 * every member as an own property, so those names are ordinary strings: valid where the key schema
 * allows them, rejected with the ordinary issue where it does not, never dropped.
 */
import { z } from 'zod';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Define `key` as an own enumerable member (assignment to `__proto__` would set the prototype). */
export function defineOwn<V>(target: Record<string, V>, key: string, value: V): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A null-prototype copy of `entries` (own members only, `__proto__` kept as a member). */
export function ownObject<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  const out = Object.create(null) as Record<string, V>;
  for (const [k, v] of entries) defineOwn(out, k, v);
  return out;
}

/** `record[key]` when `key` is an own member, else undefined (never an `Object.prototype` member). */
export function ownGet<V>(record: Readonly<Record<string, V>> | undefined | null, key: string): V | undefined {
  return record !== undefined && record !== null && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Whether `key` is an own member of `record`. */
export function ownHas(record: Readonly<Record<string, unknown>> | undefined | null, key: string): boolean {
  return record !== undefined && record !== null && Object.hasOwn(record, key);
}

/** `z.record(key, value)` that keeps every member (see the module comment). */
export function ownRecord<V extends z.ZodType>(key: z.ZodType<string>, value: V, params?: { error?: string | ((issue: never) => string) }) {
  return z.unknown().transform((input, ctx): Record<string, z.output<V>> => {
    const out = Object.create(null) as Record<string, z.output<V>>;
    const message = (issue: object): { message?: string } => {
      const e = params?.error;
      return e === undefined ? {} : { message: typeof e === 'string' ? e : e(issue as never) };
    };
    if (!isPlainObject(input)) {
      ctx.issues.push({ code: 'invalid_type', expected: 'record', input, ...message({ code: 'invalid_type', expected: 'record', input }) });
      return out;
    }
    for (const k of Object.keys(input)) {
      const kr = key.safeParse(k);
      if (!kr.success) {
        const issue = { code: 'invalid_key', origin: 'record', issues: kr.error.issues, input: k, path: [k] };
        ctx.issues.push({ ...issue, ...message(issue) } as never);
        continue;
      }
      const vr = value.safeParse(input[k]);
      if (!vr.success) {
        for (const issue of vr.error.issues) ctx.issues.push({ ...issue, path: [k, ...issue.path] } as never);
        continue;
      }
      defineOwn(out, kr.data, vr.data as z.output<V>);
    }
    return out;
  }).meta({ type: 'object' });
}
