/** Reading a ledger file from disk (the offline `--ledger FILE` source). */
import { open, stat } from 'node:fs/promises';
import { ProtocolError } from '../engine/errors.ts';
import { ledgerBuffer } from './replay/thread-verifier.ts';

/** The parser's absolute ceiling (contract `canonical_json.parser_bytes`). */
const PARSER_BYTES = 83_886_080;

/** A ledger file's bytes: missing is `ledger_not_found`; a directory or any other read failure `ledger_unreadable`. */
export async function readLedgerFile(path: string): Promise<Uint8Array> {
  let size: number;
  let regular: boolean;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new ProtocolError('ledger_unreadable', `cannot read ledger ${path}: it is a directory (give the work-queue.jsonl file)`);
    size = info.size;
    regular = info.isFile();
  } catch (e) {
    if (e instanceof ProtocolError) throw e;
    throw unreadable(path, e);
  }
  if (size > PARSER_BYTES) {
    throw new ProtocolError('resource_limit', `ledger ${path} is ${size} bytes; the parser limit is ${PARSER_BYTES}`, {}, { limit: 'ledger_bytes', max: PARSER_BYTES });
  }
  try {
    // A pipe or device (`<(...)`, /dev/stdin, /dev/zero) has no size to read into: it is read to
    // its end or to the parser's limit, whichever comes first.
    return regular ? await readSized(path, size) : await readBounded(path);
  } catch (e) {
    if (e instanceof ProtocolError) throw e;
    throw unreadable(path, e);
  }
}

/**
 * The file's bytes, read into a buffer of the size it had at `stat` (thread-verifier.ts
 * `ledgerBuffer`: a large ledger lands in memory replay's workers share). A file that shrank
 * since gives what it holds now; one that grew is read again whole, as `readFile` would.
 */
async function readSized(path: string, size: number): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const bytes = ledgerBuffer(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled === size && (await handle.read(Buffer.alloc(1), 0, 1, size)).bytesRead > 0) return await readBounded(path);
    // A Uint8Array, not a Buffer (whose `slice` shares memory): the view starts where the shared memory does.
    return new Uint8Array(bytes.buffer, bytes.byteOffset, filled);
  } finally {
    await handle.close();
  }
}

/** Reads `path` from its start to its end, refusing it (`resource_limit`) past the parser's limit. */
async function readBounded(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    // One scratch buffer, each read's bytes copied out: a pipe returns a few KiB a read, and a
    // fresh buffer per read would hold far more memory than the ledger's bytes.
    const scratch = Buffer.allocUnsafe(1 << 20);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(scratch, 0, scratch.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > PARSER_BYTES) {
        throw new ProtocolError('resource_limit', `ledger ${path} is more than ${PARSER_BYTES} bytes, the parser limit`, {}, { limit: 'ledger_bytes', max: PARSER_BYTES });
      }
      chunks.push(Buffer.from(scratch.subarray(0, bytesRead)));
    }
    return new Uint8Array(Buffer.concat(chunks, total));
  } finally {
    await handle.close();
  }
}

function unreadable(path: string, e: unknown): ProtocolError {
  const code = (e as NodeJS.ErrnoException).code;
  return new ProtocolError(code === 'ENOENT' ? 'ledger_not_found' : 'ledger_unreadable', `cannot read ledger ${path}: ${code ?? String(e)}`);
}
