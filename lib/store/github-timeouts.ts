/**
 * The GitHub clients' request timeouts and their environment overrides, apart from the client
 * itself so that opening a store (lib/store/open.ts) validates them without loading Octokit.
 */
import { ProtocolError } from '../../engine/errors.ts';

export interface RequestTimeouts {
  /** Until the response headers of a read (GET, or a GraphQL query) arrive. */
  readMs: number;
  /**
   * Until the response headers of a write (any other request, or a GraphQL mutation) arrive,
   * for a small body; a large body adds its upload time (`writeTimeoutFor`).
   */
  writeMs: number;
}

/** Default read timeout of the GitHub store: a hung request is abandoned after this long. */
export const DEFAULT_READ_TIMEOUT_MS = 8_000;
/** Default write timeout: longer, since GitHub may take a while to build a large commit. */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

/**
 * The slowest upload a write's timeout allows for (bytes a second, about 2 Mbit/s). A write's
 * timeout runs from the start of the request, its body's upload included: a publication that
 * carries a large ledger (base64 in a createCommitOnBranch mutation or a REST blob) must not be
 * abandoned while it is still being sent, since an upload cut short never commits and every
 * attempt would be cut short again.
 */
export const WRITE_UPLOAD_FLOOR_BYTES_PER_S = 256 * 1024;
/** Body bytes the plain write timeout covers without any allowance (small requests). */
const WRITE_BODY_ALLOWANCE_BYTES = 64 * 1024;

/**
 * The timeout of a write whose request body is `bodyBytes` long: `writeMs` until its answer
 * begins, plus the time to upload the bytes beyond the first 64 KiB at the floor rate.
 */
export function writeTimeoutFor(writeMs: number, bodyBytes: number): number {
  const extra = Math.max(0, bodyBytes - WRITE_BODY_ALLOWANCE_BYTES);
  return writeMs + Math.ceil((extra * 1000) / WRITE_UPLOAD_FLOOR_BYTES_PER_S);
}

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
