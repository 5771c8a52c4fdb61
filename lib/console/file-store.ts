/**
 * A read-only `LedgerStore` over a ledger file (`fairway console --ledger
 * FILE`). The version is the file's size and modification time, so an
 * appended or replaced file is picked up by the next read. Writes are refused.
 */
import { stat } from 'node:fs/promises';
import { ProtocolError } from '../../engine/errors.ts';
import { readLedgerFile } from '../ledger-file.ts';
import type { CasOutcome, LedgerSnapshot, LedgerStore } from '../store/types.ts';

export class FileStore implements LedgerStore {
  readonly label: string;
  readonly readOnly = true;

  constructor(private readonly path: string) {
    this.label = `file:${path}`;
  }

  async read(): Promise<LedgerSnapshot> {
    const info = await stat(this.path).catch(() => null);
    if (info === null) return { version: null, bytes: null };
    const bytes = await readLedgerFile(this.path);
    return { version: `file-${info.size}-${info.mtimeMs}`, bytes };
  }

  async compareAndSwap(): Promise<CasOutcome> {
    throw new ProtocolError('read_only', 'this console reads a ledger file offline; it cannot publish');
  }

  async readDefaultBranchFile(): Promise<Uint8Array | null> {
    return null;
  }
}
