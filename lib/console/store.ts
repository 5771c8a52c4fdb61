/** Opens the ledger store a console configuration names. */
import type { LedgerStore } from '../store/types.ts';
import { LocalGitStore } from '../store/local-git.ts';
import { ProtocolError } from '../../engine/errors.ts';
import type { ConsoleSource } from './config.ts';
import { FileStore } from './file-store.ts';

export function openConsoleStore(source: ConsoleSource): LedgerStore {
  switch (source.kind) {
    case 'repo':
      return new LocalGitStore({ repo: source.repo, branch: source.branch });
    case 'ledger':
      return new FileStore(source.ledger);
    default:
      throw new ProtocolError('store_unavailable', `the ${source.kind} store is not available in this build`);
  }
}

/** True when the store cannot publish (an offline ledger file). */
export function isReadOnly(store: LedgerStore): boolean {
  return (store as { readOnly?: boolean }).readOnly === true;
}
