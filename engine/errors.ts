/**
 * One error type for the whole engine. Code paths and tests match on `code`
 * (a stable reason code, spec 7.13 and the reference contract), never on prose.
 */
export interface ErrorLocation {
  /** QueueCommit id, when the failing record has one. */
  commit?: string;
  /** 1-based physical line in the ledger file. */
  line?: number;
  /** 0-based index of the operation inside its commit. */
  operation?: number;
  /** JSON path inside the record (e.g. `operations.2.work_id`). */
  path?: string;
}

/**
 * A process-wide brand (`Symbol.for`), so an error thrown by one copy of this module is still
 * a ProtocolError to another: bundlers can load a module once per layer (Next.js's server and
 * SSR chunks do), and a plain `instanceof` across copies would turn every verdict into
 * `internal_error`.
 */
const PROTOCOL_ERROR = Symbol.for('fairway.ProtocolError');

export class ProtocolError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== ProtocolError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as { [PROTOCOL_ERROR]?: unknown })[PROTOCOL_ERROR] === true;
  }

  declare readonly [PROTOCOL_ERROR]: true;
  readonly code: string;
  readonly commit?: string;
  readonly line?: number;
  readonly operation?: number;
  readonly path?: string;
  readonly details?: Record<string, unknown>;

  constructor(code: string, message: string, where: ErrorLocation = {}, details?: Record<string, unknown>) {
    super(message);
    Object.defineProperty(this, PROTOCOL_ERROR, { value: true });
    this.name = 'ProtocolError';
    this.code = code;
    if (where.commit !== undefined) this.commit = where.commit;
    if (where.line !== undefined) this.line = where.line;
    if (where.operation !== undefined) this.operation = where.operation;
    if (where.path !== undefined) this.path = where.path;
    if (details !== undefined) this.details = details;
  }

  /** A copy of this error with more location facts filled in (never overwriting known ones). */
  at(where: ErrorLocation): ProtocolError {
    return new ProtocolError(
      this.code,
      this.message,
      {
        commit: this.commit ?? where.commit,
        line: this.line ?? where.line,
        operation: this.operation ?? where.operation,
        path: this.path ?? where.path,
      },
      this.details,
    );
  }

  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.commit !== undefined) out.commit = this.commit;
    if (this.line !== undefined) out.line = this.line;
    if (this.operation !== undefined) out.operation = this.operation;
    if (this.path !== undefined) out.path = this.path;
    if (this.details !== undefined) Object.assign(out, { details: this.details });
    return out;
  }
}

export function fail(code: string, message: string, where?: ErrorLocation, details?: Record<string, unknown>): never {
  throw new ProtocolError(code, message, where, details);
}

export function isProtocolError(e: unknown): e is ProtocolError {
  return e instanceof ProtocolError;
}

/**
 * Refusals of a candidate commit (the commit a write would publish, validated before its
 * compare-and-swap and never written) carry `details.refused_candidate: true`. The candidate's
 * commit id and ledger line name nothing that exists, so they are dropped, never reported as
 * if the commit were in the ledger (a reader would grep the ledger for them); the operation
 * index and the JSON path stay: they locate the fault inside the refused request. Errors from
 * replaying the existing ledger keep their commit and line.
 */
export const REFUSED_CANDIDATE = 'refused_candidate';

/** `e` as a refusal of the candidate commit (see REFUSED_CANDIDATE); anything else unchanged. */
export function refusedCandidate(e: unknown): unknown {
  if (!isProtocolError(e) || isRefusedCandidate(e)) return e;
  const { operation, path } = e;
  return new ProtocolError(e.code, e.message, { operation, path }, { ...e.details, [REFUSED_CANDIDATE]: true });
}

/** True for an error `refusedCandidate` marked: its location is inside a request that was not written. */
export function isRefusedCandidate(e: ProtocolError): boolean {
  return e.details?.[REFUSED_CANDIDATE] === true;
}

/**
 * The one code for a fault that is not a verdict on the input: a JavaScript exception
 * (TypeError, RangeError, ...) escaping the engine or a surface is a bug in Fairway.
 * Surfaces map it exactly once, with `internalError`, and never to a protocol code.
 */
export const INTERNAL_ERROR = 'internal_error';

/** `{ code: 'internal_error', message }` for a non-protocol exception; the message says it is a bug. */
export function internalError(e: unknown): { code: typeof INTERNAL_ERROR; message: string } {
  const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return { code: INTERNAL_ERROR, message: `${what} (this is a bug in Fairway, not a verdict on the queue; please report it)` };
}

/** For surfaces that never echo exception text (web responses): the same code, a fixed message. */
export const INTERNAL_ERROR_MESSAGE = 'an internal error occurred: this is a bug in Fairway, not a verdict on the queue; please report it';

/** A ProtocolError's code and message; anything else is `internalError(e)`. */
export function describeError(e: unknown): { code: string; message: string } {
  return isProtocolError(e) ? { code: e.code, message: e.message } : internalError(e);
}

/**
 * The location suffix of a protocol error's line. An error of the existing ledger names its
 * commit and line (`(commit q_…, line 7, operation 0, at operations.0.priority)`); a commit the
 * message already names is not repeated. A refused candidate (engine/errors.ts
 * `refusedCandidate`) was never written, so it names no commit or line, only where in the
 * refused request: `(operation 0 of the refused request, at operations.0.fairness_key)`.
 */
export function whereSuffix(e: ProtocolError): string {
  const path = e.path && `at ${e.path}`;
  if (isRefusedCandidate(e)) {
    const where = [e.operation !== undefined ? `operation ${e.operation} of the refused request` : path && 'in the refused request', path].filter(Boolean).join(', ');
    return where ? ` (${where})` : '';
  }
  const commit = e.commit !== undefined && !e.message.includes(e.commit) && `commit ${e.commit}`;
  const where = [commit, e.line && `line ${e.line}`, e.operation !== undefined && `operation ${e.operation}`, path].filter(Boolean).join(', ');
  return where ? ` (${where})` : '';
}
