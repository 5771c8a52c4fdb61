/**
 * The JSON request bodies of the console's route handlers (`POST /api/admin/*`, `/api/whatif`),
 * read as strictly as the rest of the product reads JSON (README "Input"): the media type is
 * exactly `application/json` (parameters allowed; a charset, if named, is UTF-8), the body is
 * at most one ledger line, and it is parsed by the wire profile's parser (engine/codec/json.ts),
 * so a duplicated key, `1e3`, an unpaired surrogate or invalid UTF-8 is refused, never quietly
 * taken as something else. Each failure has its own stable code:
 *
 * | status | code | when |
 * |---|---|---|
 * | 415 | `json_required` | the content type is not `application/json` |
 * | 413 | `body_too_large` | more than `BODY_LIMIT` bytes (declared or sent) |
 * | 400 | `body_empty` | no body, or only JSON whitespace |
 * | 400 | `body_unreadable` | the body stream failed (the client went away) |
 * | 400 | `input_invalid` | not accepted JSON; `details.reason` is the parser's code (`invalid_json`, `duplicate_key`, `noncanonical_number`, `invalid_unicode`, `invalid_utf8`, `resource_limit`) |
 */
import { isProtocolError } from '../../engine/errors.ts';
import { LINE_BYTES } from '../../engine/codec/lines.ts';
import { parseJsonInput } from '../json-input.ts';

/** Nothing larger can be published: a request becomes one ledger line (8 MiB). */
export const BODY_LIMIT = LINE_BYTES;

export interface BodyRefusal {
  ok: false;
  status: 400 | 413 | 415;
  code: string;
  message: string;
  details?: { reason: string };
}

export type BodyResult = { ok: true; value: unknown } | BodyRefusal;

/** True when `header` names exactly `application/json` (any parameters; a charset must be UTF-8). */
export function isJsonMediaType(header: string | null): boolean {
  if (header === null) return false;
  const [type, ...parameters] = header.split(';');
  if (type!.trim().toLowerCase() !== 'application/json') return false;
  for (const parameter of parameters) {
    const eq = parameter.indexOf('=');
    if (eq < 0) return false;
    const name = parameter.slice(0, eq).trim().toLowerCase();
    const value = parameter.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (name === 'charset' && value !== 'utf-8' && value !== 'utf8') return false;
  }
  return true;
}

export const JSON_REQUIRED: BodyRefusal = { ok: false, status: 415, code: 'json_required', message: 'send the body as application/json (UTF-8)' };

function tooLarge(): BodyRefusal {
  return { ok: false, status: 413, code: 'body_too_large', message: `the body is larger than ${BODY_LIMIT} bytes` };
}

/** The body's bytes, or a refusal once it passes `limit` (the rest is not read). */
async function readBytes(request: Request, limit: number): Promise<Uint8Array | BodyRefusal> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^[0-9]+$/.test(declared.trim()) && Number(declared.trim()) > limit) return tooLarge();
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => undefined);
        return tooLarge();
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, status: 400, code: 'body_unreadable', message: 'the request body could not be read' };
  }
  return Buffer.concat(chunks, total);
}

/** Reads and parses `request`'s JSON body (the media type is checked here too). */
export async function readJsonBody(request: Request, limit: number = BODY_LIMIT): Promise<BodyResult> {
  if (!isJsonMediaType(request.headers.get('content-type'))) return JSON_REQUIRED;
  const bytes = await readBytes(request, limit);
  if (!(bytes instanceof Uint8Array)) return bytes;
  // Only JSON whitespace (bytes, so invalid UTF-8 is still the parser's verdict): an empty body.
  if (bytes.every((b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d)) return { ok: false, status: 400, code: 'body_empty', message: 'the body is empty; send a JSON object' };
  try {
    return { ok: true, value: parseJsonInput(bytes, 'the body') };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { ok: false, status: 400, code: e.code, message: e.message, details: e.details as { reason: string } };
  }
}

/**
 * A refusal as the console's routes answer it: `{ok: false, error}`, never cached. Every non-200
 * answer of an /api route is built here (store failures through store-failure.ts, which uses it).
 */
export function errorResponse(status: number, code: string, message: string, details?: { reason: string }): Response {
  return Response.json({ ok: false, error: { code, message, ...(details === undefined ? {} : { details }) } }, { status, headers: { 'cache-control': 'no-store' } });
}
