/**
 * The strict reader of a checkpoint `state` object's fields (replay/checkpoint.ts describes the
 * shape): every malformed field is `checkpoint_invalid`, located at the root's single Checkpoint
 * operation. checkpoint-read.ts, checkpoint-restore.ts and the extension restorers share it.
 */
import { fail, type ErrorLocation } from '../errors.ts';
import type { JsonObject, JsonValue } from '../json.ts';

const DIGEST = /^[a-f0-9]{64}$/;
const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

export class StateReader {
  constructor(readonly where: ErrorLocation) {}

  bad(what: string): never {
    return fail('checkpoint_invalid', `checkpoint state: ${what}`, this.where);
  }

  obj(v: JsonValue | undefined, what: string): JsonObject {
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : this.bad(`${what} must be an object`);
  }

  arr(v: JsonValue | undefined, what: string): JsonValue[] {
    return Array.isArray(v) ? v : this.bad(`${what} must be an array`);
  }

  str(v: JsonValue | undefined, what: string): string {
    return typeof v === 'string' && v.length > 0 ? v : this.bad(`${what} must be a nonempty string`);
  }

  /** Absent means null (the reference omits empty optional fields). */
  optStr(v: JsonValue | undefined, what: string): string | null {
    return v === undefined ? null : this.str(v, what);
  }

  int(v: JsonValue | undefined, what: string): number {
    return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : this.bad(`${what} must be a nonnegative integer`);
  }

  bool(v: JsonValue | undefined, what: string): boolean {
    return typeof v === 'boolean' ? v : this.bad(`${what} must be a boolean`);
  }

  digest(v: JsonValue | undefined, what: string): string {
    return typeof v === 'string' && DIGEST.test(v) ? v : this.bad(`${what} must be a SHA-256 hex digest`);
  }

  /** A canonical nonnegative decimal string (fairness passes). */
  decimal(v: JsonValue | undefined, what: string): bigint {
    return typeof v === 'string' && DECIMAL.test(v) ? BigInt(v) : this.bad(`${what} must be a canonical decimal string`);
  }

  oneOf<T extends string>(v: JsonValue | undefined, what: string, values: readonly T[]): T {
    return typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as T) : this.bad(`${what} must be one of ${values.join(', ')}`);
  }

  /** Set members of a `{member: true}` object. */
  set(v: JsonValue | undefined, what: string): string[] {
    return Object.entries(this.obj(v, what)).filter(([k, on]) => this.bool(on, `${what}.${k}`)).map(([k]) => k);
  }

  keys(v: JsonObject, allowed: ReadonlySet<string>, what: string): void {
    for (const key of Object.keys(v)) if (!allowed.has(key)) this.bad(`${what} has unknown field ${key}`);
  }
}
