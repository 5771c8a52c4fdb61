/**
 * Validates what the fake GitHub sends against GitHub's official OpenAPI
 * description (`@octokit/openapi`, api.github.com, OpenAPI 3.0): the operation
 * is found by method + path template, the response by status code and media
 * type, and the body is checked with ajv.
 *
 * Beyond the description itself, objects are closed: a property the schema does
 * not name is a violation (`unevaluatedProperties: false` on every object
 * schema), so a misspelled optional field cannot slip through. OpenAPI 3.0's
 * `nullable` is understood by ajv natively; `discriminator` and `example` are
 * annotations here (`strict: false`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2019, type ValidateFunction } from 'ajv/dist/2019.js';
import addFormatsModule from 'ajv-formats';

export interface ResponseToCheck {
  method: string;
  /** OpenAPI path template, e.g. `/repos/{owner}/{repo}/git/ref/{ref}`. */
  path: string;
  status: number;
  /** Media type sent (parameters ignored); default `application/json`. */
  contentType?: string;
  /** The parsed body (undefined: no body). */
  body: unknown;
}

export interface OpenApiViolation {
  method: string;
  path: string;
  status: number;
  message: string;
  errors?: unknown[];
}

type Json = Record<string, unknown>;

const DOC_ID = 'github';
const SCHEMA_KEYS_LIST = ['allOf', 'anyOf', 'oneOf'] as const;

// ajv-formats ships CJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2019) => void;

export class OpenApiValidator {
  private readonly ajv: Ajv2019;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json) {
    this.ajv = new Ajv2019({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    const components = doc.components as Json;
    const schemas = structuredClone(components.schemas) as Json;
    for (const [name, schema] of Object.entries(schemas)) schemas[name] = closeObjects(nullableWithoutType(schema));
    this.ajv.addSchema({ $id: DOC_ID, components: { schemas } });
  }

  /** The operation object for `method` + `path`, or undefined. */
  operation(method: string, path: string): Json | undefined {
    const item = (this.doc.paths as Json)[path] as Json | undefined;
    return item?.[method.toLowerCase()] as Json | undefined;
  }

  /** Null when the response is exactly as the description says; otherwise why not. */
  check(res: ResponseToCheck): OpenApiViolation | null {
    const where = { method: res.method.toUpperCase(), path: res.path, status: res.status };
    const op = this.operation(res.method, res.path);
    if (op === undefined) return { ...where, message: 'no such operation in the OpenAPI description' };
    const responses = op.responses as Json;
    let response = (responses[String(res.status)] ?? responses.default) as Json | undefined;
    if (response === undefined) return { ...where, message: `status ${res.status} is not documented for this operation` };
    response = this.deref(response);
    const content = response.content as Json | undefined;
    if (content === undefined) {
      return res.body === undefined ? null : { ...where, message: 'the description documents no body for this status' };
    }
    const mediaType = (res.contentType ?? 'application/json').split(';')[0]!.trim();
    const media = content[mediaType] as Json | undefined;
    if (media === undefined) return { ...where, message: `media type ${mediaType} is not documented (documented: ${Object.keys(content).join(', ')})` };
    if (media.schema === undefined) return null;
    const validate = this.validator(`${where.method} ${res.path} ${res.status} ${mediaType}`, media.schema as Json);
    if (validate(res.body)) return null;
    return { ...where, message: this.ajv.errorsText(validate.errors, { dataVar: 'body' }), errors: validate.errors ?? [] };
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let v = this.compiled.get(key);
    if (v === undefined) {
      v = this.ajv.compile(rebase(closeObjects(nullableWithoutType(structuredClone(schema)))) as Json);
      this.compiled.set(key, v);
    }
    return v;
  }

  /** Resolves a `#/components/...` reference object (responses are not schemas). */
  private deref(node: Json): Json {
    let cur = node;
    for (let i = 0; typeof cur.$ref === 'string' && i < 10; i++) {
      cur = (cur.$ref as string).slice(2).split('/').reduce<Json>((o, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, this.doc);
    }
    return cur;
  }
}

/**
 * Closes every object schema: `unevaluatedProperties: false` wherever a schema
 * lists properties or composes with allOf, except directly inside an allOf
 * (a member cannot see its siblings' properties; the parent closes them).
 */
function closeObjects(node: unknown, inAllOf = false): unknown {
  if (Array.isArray(node) || node === null || typeof node !== 'object') return node;
  const s = node as Json;
  if (s.properties && typeof s.properties === 'object') {
    for (const value of Object.values(s.properties as Json)) closeObjects(value);
  }
  for (const key of SCHEMA_KEYS_LIST) {
    if (Array.isArray(s[key])) for (const m of s[key] as unknown[]) closeObjects(m, key === 'allOf');
  }
  if (s.items && typeof s.items === 'object') closeObjects(s.items);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') closeObjects(s.additionalProperties);
  if (s.not && typeof s.not === 'object') closeObjects(s.not);
  const objectLike = s.properties !== undefined || Array.isArray(s.allOf);
  if (objectLike && !inAllOf && s.additionalProperties === undefined && s.unevaluatedProperties === undefined && typeof s.$ref !== 'string') {
    s.unevaluatedProperties = false;
  }
  return s;
}

/**
 * OpenAPI 3.0 lets `nullable: true` stand beside `anyOf`/`oneOf`/`allOf` without a `type`
 * (e.g. `issue-field-value`, reachable from every Issue response); ajv refuses that form.
 * It means "this schema, or null", which is exactly `anyOf: [schema, {type: null}]`.
 * (Needed since the fake serves Issues: `issue.state_reason` is a nullable enum.)
 */
function nullableWithoutType(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableWithoutType);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) out[k] = k === 'example' || k === 'examples' ? v : nullableWithoutType(v);
  if (out.nullable === true && out.type === undefined) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  // Likewise `nullable` beside `enum` admits null, which ajv only accepts when listed.
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

/** Points document-relative `#/components/...` references at the added description. */
function rebase(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebase);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : rebase(v);
  }
  return out;
}

let shared: OpenApiValidator | undefined;

/** The api.github.com description from `@octokit/openapi`, loaded once per process. */
export function githubOpenApi(): OpenApiValidator {
  if (shared === undefined) {
    const require = createRequire(import.meta.url);
    const file = require.resolve('@octokit/openapi/generated/api.github.com.json');
    shared = new OpenApiValidator(JSON.parse(readFileSync(file, 'utf8')) as Json);
  }
  return shared;
}
