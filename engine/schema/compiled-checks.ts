/**
 * The emitter under the generated validator (compiled.ts): source literals and
 * constant slots, and the lines of zod's checks (bounds, number formats,
 * lengths, regular expressions, refinements), each mirroring zod 4's
 * checks.js issue for issue. Lines return 0 (INVALID) or 2 (UNPROVEN) and
 * fall through when the check holds; `v` is the value, `r` a scratch slot.
 */
import { z } from 'zod';
import { patternFunctionSource } from './pattern.ts';

export type Def = z.core.$ZodTypeDef & Record<string, unknown>;
type Internals = z.core.$ZodTypeInternals & { optin?: string; optout?: string; values?: Set<unknown>; propValues?: Record<string, Set<unknown>> };

export const internals = (s: z.core.$ZodType): Internals => s._zod as Internals;
export const defOf = (s: z.core.$ZodType): Def => s._zod.def as Def;

/** A string's length in code points, as zod's length checks count it (a lone surrogate is one). */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

/** The condition zod gives every length check by default (the input has a length). */
const DEFAULT_LENGTH_WHEN = (z.string().max(1)._zod.def.checks![0]!._zod.def as { when?: unknown }).when;

const RANGES = z.core.util.NUMBER_FORMAT_RANGES as Record<string, [number, number]>;

export class Emitter {
  protected readonly functions: string[] = [];
  private readonly patterns = new Map<RegExp, string>();
  readonly constants: unknown[] = [];
  readonly unproven: string[] = [];

  /** A source literal for a primitive that has an exact one (else a constant slot). */
  literal(value: unknown): string {
    switch (typeof value) {
      case 'string':
        return JSON.stringify(value);
      case 'boolean':
        return String(value);
      case 'undefined':
        return 'undefined';
      case 'number':
        if (Object.is(value, -0)) return '-0';
        return Number.isFinite(value) ? String(value) : this.constant(value);
      default:
        return value === null ? 'null' : this.constant(value);
    }
  }

  /** `Set#has` (SameValueZero) as a chain of `===` for a few primitives without NaN, else the Set itself. */
  member(expr: string, values: Set<unknown>): string {
    const list = [...values];
    const small = list.length <= 8 && list.every((x) => x === null || ['string', 'boolean', 'undefined'].includes(typeof x) || (typeof x === 'number' && !Number.isNaN(x)));
    if (!small || list.length === 0) return `${this.constant(values)}.has(${expr})`;
    return `(${list.map((x) => `${expr} === ${this.literal(x)}`).join(' || ')})`;
  }

  constant(value: unknown): string {
    let i = this.constants.indexOf(value);
    if (i < 0) i = this.constants.push(value) - 1;
    return `k${i}`;
  }

  protected giveUp(what: string): string[] {
    this.unproven.push(what);
    return ['return 2;'];
  }

  /** A refinement's answer: true passes; a promise is for zod's async parse; else truthiness, as zod reads it. */
  private refinement(fn: (v: unknown) => unknown): string[] {
    return [`r = ${this.constant(fn)}(v);`, 'if (r !== true) { if (r instanceof Promise) return 2; if (!r) return 0; }'];
  }

  /**
   * The schema's checks, in zod's order (any failing check is an issue, so order is only speed).
   * A schema that is itself a check (`z.int()`'s number format, `z.custom`'s function) runs
   * first, as in zod's `$ZodType` constructor.
   */
  protected checks(schema: z.core.$ZodType): string[] {
    const out: string[] = [];
    const own = (schema._zod.traits.has('$ZodCheck') ? [schema] : []) as unknown as z.core.$ZodCheck[];
    for (const check of [...own, ...((defOf(schema).checks ?? []) as z.core.$ZodCheck[])]) {
      const c = check._zod.def as unknown as Record<string, unknown> & { check: string };
      // A check that runs only `when` something holds is skipped by zod otherwise; the
      // length checks' own default condition (the input has a length) always holds here.
      if (c.when !== undefined && c.when !== DEFAULT_LENGTH_WHEN) {
        out.push(...this.giveUp(`check:${c.check}:when`));
        continue;
      }
      switch (c.check) {
        case 'less_than':
          out.push(`if (!(v ${c.inclusive ? '<=' : '<'} ${this.literal(c.value)})) return 0;`);
          break;
        case 'greater_than':
          out.push(`if (!(v ${c.inclusive ? '>=' : '>'} ${this.literal(c.value)})) return 0;`);
          break;
        case 'number_format': {
          const format = (c.format as string | undefined) ?? 'float64';
          const range = RANGES[format];
          if (range === undefined) {
            out.push(...this.giveUp(`number_format:${format}`));
            break;
          }
          if (format.includes('int')) out.push('if (!Number.isSafeInteger(v)) return 0;');
          out.push(`if (v < ${this.literal(range[0])} || v > ${this.literal(range[1])}) return 0;`);
          break;
        }
        // zod measures a string in code points (an array in elements); UTF-16 units bound it
        // from above, so the code-point count is taken only where the two can disagree.
        case 'max_length':
          out.push(`if (v.length > ${this.literal(c.maximum)} && (typeof v !== 'string' || ${this.constant(codePoints)}(v) > ${this.literal(c.maximum)})) return 0;`);
          break;
        case 'min_length':
          out.push(`if ((typeof v === 'string' && v.length >= ${this.literal(c.minimum)} ? ${this.constant(codePoints)}(v) : v.length) < ${this.literal(c.minimum)}) return 0;`);
          break;
        case 'length_equals':
          out.push(`if ((typeof v === 'string' && v.length >= ${this.literal(c.length)} ? ${this.constant(codePoints)}(v) : v.length) !== ${this.literal(c.length)}) return 0;`);
          break;
        case 'string_format':
          if (c.format !== 'regex') {
            out.push(...this.giveUp(`string_format:${String(c.format)}`));
            break;
          }
          out.push(this.pattern(c.pattern as RegExp));
          break;
        case 'custom':
          // `refine` keeps its predicate in `fn`; a check without one (superRefine's issue-adding
          // callback) cannot be read as a predicate.
          if (typeof c.fn !== 'function') {
            out.push(...this.giveUp('check:custom:callback'));
            break;
          }
          out.push(...this.refinement(c.fn as (v: unknown) => unknown));
          break;
        default:
          out.push(...this.giveUp(`check:${c.check}`));
      }
    }
    return out;
  }

  /**
   * zod's regex check (`lastIndex = 0`, then `test`): a fixed-form pattern as a generated loop
   * over the units (pattern.ts), else the expression itself.
   */
  private pattern(regex: RegExp): string {
    const k = this.constant(regex);
    const viaRegex = `(${k}.lastIndex = 0, ${k}.test(v))`;
    let name = this.patterns.get(regex);
    if (name === undefined) {
      name = `p${this.patterns.size}`;
      const source = patternFunctionSource(regex, name, (value) => this.constant(value));
      if (source === null) return `if (!${viaRegex}) return 0;`;
      this.patterns.set(regex, name);
      this.functions.push(source);
    }
    return `if (!(typeof v === "string" ? ${name}(v) : ${viaRegex})) return 0;`;
  }
}
