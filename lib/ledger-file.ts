/** Reading a ledger file from disk (the offline `--ledger FILE` source). */
import { readFile, stat } from 'node:fs/promises';
import { ProtocolError } from '../engine/errors.ts';

/** The parser's absolute ceiling (contract `canonical_json.parser_bytes`). */
const PARSER_BYTES = 83_886_080;

/** A ledger file's bytes: missing is `ledger_not_found`; a directory or any other read failure `ledger_unreadable`. */
export async function readLedgerFile(path: string): Promise<Uint8Array> {
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new ProtocolError('ledger_unreadable', `cannot read ledger ${path}: it is a directory (give the work-queue.jsonl file)`);
    size = info.size;
  } catch (e) {
    if (e instanceof ProtocolError) throw e;
    throw unreadable(path, e);
  }
  if (size > PARSER_BYTES) {
    throw new ProtocolError('resource_limit', `ledger ${path} is ${size} bytes; the parser limit is ${PARSER_BYTES}`, {}, { limit: 'ledger_bytes', max: PARSER_BYTES });
  }
  try {
    return new Uint8Array(await readFile(path));
  } catch (e) {
    throw unreadable(path, e);
  }
}

function unreadable(path: string, e: unknown): ProtocolError {
  const code = (e as NodeJS.ErrnoException).code;
  return new ProtocolError(code === 'ENOENT' ? 'ledger_not_found' : 'ledger_unreadable', `cannot read ledger ${path}: ${code ?? String(e)}`);
}
