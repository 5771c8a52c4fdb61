/**
 * A read-only `LedgerStore` over a ledger file (`--ledger FILE`, `fairway console
 * --ledger FILE`). The version is the file's size and modification time, so an
 * appended or replaced file is picked up by the next read. Writes are refused.
 */
import { stat } from 'node:fs/promises';
import { ProtocolError } from '../../engine/errors.ts';
import { readLedgerFile } from '../ledger-file.ts';
import type { CasOutcome, LedgerSnapshot, LedgerStore } from './types.ts';

export interface FileStoreOptions {
  /**
   * A missing file is `ledger_not_found` (a command reading the file once), not an absent
   * queue (the console, which watches the path until a ledger appears there). Either way a
   * path that exists but cannot be read (EACCES, ENOTDIR, ...) is `ledger_unreadable`.
   */
  required?: boolean;
  /** Reads `-` as standard input (the CLI's once-per-run reader); without it `-` is a file name. */
  stdin?: () => Promise<Uint8Array>;
}

export class FileStore implements LedgerStore {
  readonly label: string;
  readonly readOnly = true;

  constructor(private readonly path: string, private readonly options: FileStoreOptions = {}) {
    this.label = `file:${path}`;
  }

  async read(): Promise<LedgerSnapshot> {
    if (this.path === '-' && this.options.stdin !== undefined) return { version: 'stdin', bytes: await this.options.stdin() };
    const info = await stat(this.path).catch((e: unknown) => {
      const code = (e as NodeJS.ErrnoException).code;
      // Only an absent file is "no ledger yet"; any other failure (EACCES, ENOTDIR, ...) is an error.
      if (code === 'ENOENT') return null;
      throw new ProtocolError('ledger_unreadable', `cannot read ledger ${this.path}: ${code ?? String(e)}`);
    });
    if (info === null && this.options.required !== true) return { version: null, bytes: null };
    const bytes = await readLedgerFile(this.path);
    return { version: `file-${info?.size}-${info?.mtimeMs}`, bytes };
  }

  async compareAndSwap(): Promise<CasOutcome> {
    throw new ProtocolError('read_only', 'this console reads a ledger file offline; it cannot publish');
  }

  async readDefaultBranchFile(): Promise<Uint8Array | null> {
    return null;
  }
}
