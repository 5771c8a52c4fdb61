/**
 * An in-place validator generated from a closed zod schema (spec 7.17: replay
 * validates every record, so this is its hot path). It is zod's own schema read as data: one
 * source of truth, nothing hand-copied. It builds no output: it answers
 *
 *   PROVEN (1)    zod accepts the value, and zod's output equals the value itself up to the
 *                 order of object keys (no transform, coercion, stripped key or default), so
 *                 the caller may use the value as parsed;
 *   INVALID (0)   zod rejects the value;
 *   UNPROVEN (2)  not decided here (a transform, a stripped unknown key, an unsupported check,
 *                 an asynchronous refinement, ...).
 *
 * Anything but PROVEN sends the caller to zod itself, which then names the exact issue and
 * code, so the generated code only has to be right about what it proves. Each construct below
 * mirrors the zod 4 runtime (zod/v4/core schemas.js, checks.js) issue for issue: an object key
 * is present when `key in value`, absent keys follow the schema's `optin`/`optout`, strict
 * objects reject every `for...in` key outside the shape, a discriminated union dispatches on
 * its discriminator map, a plain union takes its first option that is not INVALID (so an
 * UNPROVEN earlier option is never overtaken), refinements see the value (zod hands them its
 * own structurally equal copy; the refinements of the wire schemas are structural).
 *
 * `alias` (optional second argument) is one array of the value known to be deep-equal to the
 * array at `AliasRule.proven` in the same value (replay passes the request parameters' copy
 * of the operations when their texts are identical). Its elements are then not validated
 * again: the element schema resolves, for each element's discriminator, to the very option
 * object (same identity) the proven array's union dispatched to, or the answer is UNPROVEN.
 * Checks on the aliased array itself still run.
 */
import { z } from 'zod';
import { defOf, Emitter, internals, type Def } from './compiled-checks.ts';

export const INVALID = 0;
export const PROVEN = 1;
export const UNPROVEN = 2;
export type Verdict = typeof INVALID | typeof PROVEN | typeof UNPROVEN;

export interface FastValidator {
  (value: unknown, alias?: unknown): Verdict;
  /** Schema constructs answered UNPROVEN by construction (`type` or `type:check`), for tests. */
  readonly unproven: readonly string[];
  /** The generated source (diagnostics). */
  readonly source: string;
}

export interface AliasRule {
  /** The array schema whose elements the alias equals (validated in full in the same call). */
  proven: z.core.$ZodType;
  /** Array schemas that may be handed the alias. */
  arrays: readonly z.core.$ZodType[];
}


class Generator extends Emitter {
  private readonly names = new Map<z.core.$ZodType, string>();
  private readonly building = new Set<z.core.$ZodType>();
  private readonly leaves = new Map<z.core.$ZodType, string[]>();
  private counter = 0;

  constructor(private readonly alias: AliasRule | undefined) {
    super();
  }

  /** The name of the generated function validating `schema` (generated once per schema object). */
  fn(schema: z.core.$ZodType): string {
    const known = this.names.get(schema);
    if (known !== undefined) return known;
    if (this.building.has(schema)) throw new Error('compileValidator: recursive schemas are not supported');
    this.building.add(schema);
    const name = `f${this.counter++}`;
    const body = this.body(schema);
    this.building.delete(schema);
    this.names.set(schema, name);
    this.functions.push(`function ${name}(v, a) {\n  let r;\n${body.map((l) => `  ${l}`).join('\n')}\n  return 1;\n}`);
    return name;
  }

  source(root: string): string {
    // Each constant is bound once, by name (a context slot, not an element of `k`).
    const bind = this.constants.length === 0 ? '' : `const ${this.constants.map((_, i) => `k${i} = k[${i}]`).join(', ')};\n`;
    return `${bind}${this.functions.join('\n')}\nreturn ${root};`;
  }

  /** Lines returning 0 or 2 when `v` fails `schema`; falling through means PROVEN. */
  private body(schema: z.core.$ZodType): string[] {
    const def = defOf(schema);
    switch (def.type) {
      case 'string':
        if (def.coerce) return this.giveUp('string:coerce');
        return ['if (typeof v !== "string") return 0;', ...this.checks(schema)];
      case 'number':
        if (def.coerce) return this.giveUp('number:coerce');
        return ['if (typeof v !== "number" || !Number.isFinite(v)) return 0;', ...this.checks(schema)];
      case 'boolean':
        if (def.coerce) return this.giveUp('boolean:coerce');
        return ['if (typeof v !== "boolean") return 0;', ...this.checks(schema)];
      case 'literal':
      case 'enum':
        return [`if (!${this.member('v', internals(schema).values!)}) return 0;`, ...this.checks(schema)];
      case 'unknown':
      case 'any':
        return this.checks(schema);
      case 'custom':
        return this.checks(schema); // its `fn` is its own first check
      case 'nullable':
        return ['if (v !== null) {', ...this.check(def.innerType as z.core.$ZodType, 'v'), '}', ...this.checks(schema)];
      case 'optional': {
        const inner = def.innerType as z.core.$ZodType;
        if (internals(inner).optin === 'defaulted') return this.giveUp('optional:defaulted');
        return ['if (v !== undefined) {', ...this.check(inner, 'v'), '}', ...this.checks(schema)];
      }
      case 'array':
        return this.array(schema, def);
      case 'object':
        return this.object(schema, def);
      case 'union':
        if (((def.checks ?? []) as unknown[]).length > 0) return this.giveUp('union:checks');
        return def.discriminator === undefined ? this.union(def) : this.discriminated(def);
      default:
        // pipe, transform, default, catch, record, tuple, ...: zod decides.
        return this.giveUp(def.type);
    }
  }

  /**
   * Lines returning 0 or 2 when `expr` (a variable) fails `schema`, falling through otherwise:
   * a leaf (a primitive with its checks, possibly optional or nullable) is checked in place,
   * anything else by its function.
   */
  private check(schema: z.core.$ZodType, expr: string): string[] {
    if (!isLeaf(schema)) return [`r = ${this.fn(schema)}(${expr}, a); if (r !== 1) return r;`];
    let body = this.leaves.get(schema);
    if (body === undefined) this.leaves.set(schema, (body = this.body(schema)));
    // The leaf's lines read `v` (and the caller's `r`); a block rebinds `v` to the value.
    return expr === 'v' ? body : [`{ const v = ${expr};`, ...body.map((l) => `  ${l}`), '}'];
  }

  private array(schema: z.core.$ZodType, def: Def): string[] {
    const element = def.element as z.core.$ZodType;
    const out = ['if (!Array.isArray(v)) return 0;'];
    const aliased = this.alias !== undefined && this.alias.arrays.includes(schema) ? this.aliasCheck(element) : null;
    const loop = `for (let i = 0; i < v.length; i++) { const e = v[i]; ${this.check(element, 'e').join(' ')} }`;
    if (aliased === null) out.push(loop);
    else out.push('if (v === a) {', ...aliased.map((l) => `  ${l}`), `} else ${loop}`);
    return [...out, ...this.checks(schema)];
  }

  /** Elements of the alias: each must resolve to the option the proven array's union used. */
  private aliasCheck(element: z.core.$ZodType): string[] | null {
    const proven = defOf(this.alias!.proven);
    const union = defOf(proven.element as z.core.$ZodType);
    if (proven.type !== 'array' || union.type !== 'union' || union.discriminator === undefined) return null;
    const key = union.discriminator as string;
    const provenOptions = discriminatorMap(union);
    const mine = defOf(element);
    const resolve = (value: unknown): z.core.$ZodType | null | undefined =>
      mine.type === 'union' && mine.discriminator === key ? discriminatorMap(mine).get(value) : element;
    const same: unknown[] = [];
    for (const [value, option] of provenOptions) if (option !== null && resolve(value) === option) same.push(value);
    return [
      'for (let i = 0; i < v.length; i++) {',
      '  const e = v[i];',
      `  if (typeof e !== "object" || e === null || !${this.member(`e[${JSON.stringify(key)}]`, new Set(same))}) return 2;`,
      '}',
    ];
  }

  private object(schema: z.core.$ZodType, def: Def): string[] {
    const shape = def.shape as Record<string, z.core.$ZodType>;
    const keys = Object.keys(shape);
    const out = ['if (typeof v !== "object" || v === null || Array.isArray(v)) return 0;', 'let x;'];
    for (const key of keys) {
      if (key === '__proto__') continue; // zod skips it in the shape loop
      const field = shape[key]!;
      const { optin, optout } = internals(field);
      const k = JSON.stringify(key);
      let absent: string;
      if (optin === 'optional' && optout === 'optional') absent = '';
      else {
        // zod runs the field on undefined: an issue is forgiven only for optional-in/out fields,
        // and a clean run still needs the key unless the field is optional-in.
        const onIssue = optin !== undefined && optout === 'optional' ? '' : 'return 0;';
        const onClean = optin !== undefined ? '' : 'return 0;';
        const f = this.fn(field);
        absent =
          onIssue !== '' && onClean !== ''
            ? `return ${f}(undefined, a) === 2 ? 2 : 0;`
            : `r = ${f}(undefined, a); if (r === 2) return 2; if (r === 0) { ${onIssue} } else { ${onClean} }`;
      }
      // Present as zod sees it (`key in value`); a defined value proves it without the `in` test.
      out.push(`x = v[${k}];`, `if (x !== undefined || ${k} in v) {`, ...this.check(field, 'x').map((l) => `  ${l}`), `} else { ${absent} }`);
    }
    const catchall = def.catchall as z.core.$ZodType | undefined;
    // Every `for...in` key outside the shape: strict rejects it; strip would drop it (the output differs).
    const unknown = (verdict: number): string =>
      `for (const key in v) { switch (key) { ${keys.map((key) => `case ${JSON.stringify(key)}:`).join(' ')} break; default: return ${verdict}; } }`;
    if (catchall === undefined) out.push(unknown(2));
    else if (defOf(catchall).type === 'never') out.push(unknown(0));
    else out.push(...this.giveUp('object:catchall'));
    return [...out, ...this.checks(schema)];
  }

  private union(def: Def): string[] {
    const options = def.options as z.core.$ZodType[];
    return [...options.map((o) => `r = ${this.fn(o)}(v, a); if (r !== 0) return r;`), 'return 0;'];
  }

  private discriminated(def: Def): string[] {
    if (def.unionFallback) return this.giveUp('union:fallback');
    const key = JSON.stringify(def.discriminator);
    const out = ['if (typeof v !== "object" || v === null || Array.isArray(v)) return 0;', `const d = v[${key}];`];
    for (const [value, option] of discriminatorMap(def)) {
      if (typeof value === 'number' && Number.isNaN(value)) return this.giveUp('union:NaN');
      out.push(`if (d === ${this.literal(value)}) ${option === null ? 'return 0;' : `return ${this.fn(option)}(v, a);`}`);
    }
    out.push('return 0;');
    return out;
  }
}

const LEAVES = new Set(['string', 'number', 'boolean', 'literal', 'enum', 'unknown', 'any', 'custom']);

/** A schema whose lines declare nothing and call no generated function (checked in place). */
function isLeaf(schema: z.core.$ZodType): boolean {
  const def = defOf(schema);
  if (def.type === 'optional' || def.type === 'nullable') return isLeaf(def.innerType as z.core.$ZodType);
  return LEAVES.has(def.type);
}

/** zod's discriminator → option map (schemas.js `discriminatorMap`): null marks an ambiguous value. */
function discriminatorMap(def: Def): Map<unknown, z.core.$ZodType | null> {
  const map = new Map<unknown, z.core.$ZodType | null>();
  const key = def.discriminator as string;
  for (const option of def.options as z.core.$ZodType[]) {
    const values = internals(option).propValues?.[key];
    if (values === undefined || values.size === 0) throw new Error('compileValidator: a discriminated union option without discriminator values');
    for (const value of values) map.set(value, map.has(value) ? null : option);
  }
  return map;
}

/** Generates the validator of `schema` (see the module comment). */
export function compileValidator(schema: z.core.$ZodType, alias?: AliasRule): FastValidator {
  const generator = new Generator(alias);
  const root = generator.fn(schema);
  const source = generator.source(root);
  const factory = new Function('k', source) as (k: unknown[]) => (value: unknown, alias?: unknown) => Verdict;
  const run = factory(generator.constants);
  const validator = ((value: unknown, a?: unknown): Verdict => {
    try {
      return run(value, a);
    } catch {
      return UNPROVEN; // a refinement threw: zod decides (and throws the same)
    }
  }) as FastValidator;
  Object.defineProperty(validator, 'unproven', { value: Object.freeze([...generator.unproven]) });
  Object.defineProperty(validator, 'source', { value: source });
  return validator;
}
