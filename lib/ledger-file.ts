/** Reading a ledger file from disk (the offline `--ledger FILE` source). */
import { readFile, stat } from 'node:fs/promises';
import { ProtocolError } from '../engine/errors.ts';

/** The parser's absolute ceiling (contract `canonical_json.parser_bytes`). */
const PARSER_BYTES = 83_886_080;

export async function readLedgerFile(path: string): Promise<Uint8Array> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ProtocolError(code === 'ENOENT' ? 'ledger_not_found' : 'ledger_unreadable', `cannot read ledger ${path}: ${code ?? String(e)}`);
  }
  if (size > PARSER_BYTES) {
    throw new ProtocolError('resource_limit', `ledger ${path} is ${size} bytes; the parser limit is ${PARSER_BYTES}`, {}, { limit: 'ledger_bytes', max: PARSER_BYTES });
  }
  return new Uint8Array(await readFile(path));
}
