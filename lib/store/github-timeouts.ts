/**
 * The GitHub clients' request timeouts and their environment overrides, apart from the client
 * itself so that opening a store (lib/store/open.ts) validates them without loading Octokit.
 */
import { ProtocolError } from '../../engine/errors.ts';

export interface RequestTimeouts {
  /** Until the response headers of a read (GET, or a GraphQL query) arrive. */
  readMs: number;
  /** Until the response headers of a write (any other request, or a GraphQL mutation) arrive. */
  writeMs: number;
}

/** Default read timeout of the GitHub store: a hung request is abandoned after this long. */
export const DEFAULT_READ_TIMEOUT_MS = 8_000;
/** Default write timeout: longer, since GitHub may take a while to build a large commit. */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

/**
 * The store's timeouts: explicit options first, then `FAIRWAY_GITHUB_TIMEOUT_MS`
 * (reads) and `FAIRWAY_GITHUB_WRITE_TIMEOUT_MS` (writes), then the defaults.
 */
export function storeTimeouts(given: Partial<RequestTimeouts> = {}, env: Readonly<Record<string, string | undefined>> = process.env): RequestTimeouts {
  const fromEnv = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n <= 0) throw new ProtocolError('store_options_invalid', `${name} must be a positive whole number of milliseconds, not ${JSON.stringify(raw)}`, {}, { usage: true });
    return n;
  };
  return {
    readMs: given.readMs ?? fromEnv('FAIRWAY_GITHUB_TIMEOUT_MS') ?? DEFAULT_READ_TIMEOUT_MS,
    writeMs: given.writeMs ?? fromEnv('FAIRWAY_GITHUB_WRITE_TIMEOUT_MS') ?? DEFAULT_WRITE_TIMEOUT_MS,
  };
}
