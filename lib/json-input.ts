/**
 * JSON that people hand Fairway (CLI input files, console request bodies) read within the wire
 * profile (spec 7.6, "Canonical encoding"), since what it holds is written to the ledger as it
 * was read: UTF-8 only, and no duplicated keys, non-canonical numbers (`1e3`, `1.5`, `-0`, past
 * 2^53) or unpaired surrogates. `JSON.parse` would quietly keep the last of two keys, turn `1e3`
 * into 1000 and an invalid byte into U+FFFD. Anything refused is `code` (default
 * `input_invalid`) with the parser's own code as `details.reason`.
 */
import { parseStrict } from '../engine/codec/json.ts';
import { fail, isProtocolError } from '../engine/errors.ts';

/** `bytes` parsed as JSON within the wire profile; `named` says what they are in an error. */
export function parseJsonInput(bytes: Uint8Array, named: string, code = 'input_invalid'): unknown {
  // A BOM is kept (it would not be in the canonical bytes): named, since the parser's own words
  // for it are "unexpected character at offset 0" (editors on Windows save one by default).
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return fail(code, `${named} starts with a UTF-8 byte order mark (BOM); save it as UTF-8 without a BOM`, {}, { reason: 'utf8_bom' });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return fail(code, `${named} is not UTF-8 text`, {}, { reason: 'invalid_utf8' });
  }
  try {
    return parseStrict(text);
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    const what = e.code === 'invalid_json' ? 'is not JSON' : 'is not accepted JSON';
    return fail(code, `${named} ${what}: ${e.message}`, {}, { reason: e.code });
  }
}
