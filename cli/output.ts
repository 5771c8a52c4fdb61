/**
 * CLI output conventions (design/INTERFACES.md): `--json` prints exactly one
 * JSON object; failures print `{"ok":false,"error":{code,message,...}}`.
 * Exit codes: 0 success, 2 usage error, 3 protocol or ledger error, 70 internal
 * error (a bug in Fairway: EX_SOFTWARE, never a verdict on the ledger). Every error is
 * printed once, with its stable code.
 */
import { internalError, isProtocolError, whereSuffix } from '../engine/errors.ts';

export const EXIT_OK = 0;
export const EXIT_USAGE = 2;
export const EXIT_PROTOCOL = 3;
/** sysexits.h EX_SOFTWARE: an internal software error, distinct from every protocol verdict. */
export const EXIT_INTERNAL = 70;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** The exit-code table every `--help` ends with. */
export const EXIT_CODES_HELP = `Exit codes: 0 success, 2 usage error (a bad flag or option value; nothing was read or written), 3 protocol or ledger error (a stable code names it), 70 internal error (a bug in Fairway: please report it).`;

export class UsageError extends Error {
  constructor(message: string, readonly code = 'usage_error') {
    super(message);
  }
}

/**
 * A failure that still carries the command's report: `failure` decides the code, the message
 * and the exit code as if thrown alone (a protocol error exits 3, anything else is
 * `internal_error`, 70); `report` is added to `error.details` under --json (a command prints
 * its own text report before throwing).
 */
export class ReportedFailure extends Error {
  constructor(readonly failure: unknown, readonly report: Record<string, unknown>) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

export function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

/**
 * How a failure is printed: `false` a `fairway: CODE: message` line on stderr; `true` (--json,
 * --format json) one JSON object on stdout; `'jsonl'` (--format jsonl) that object on one line,
 * a record like every other line of the format.
 */
export type FailureForm = boolean | 'jsonl';

/**
 * Prints a failure in the requested form and returns the exit code. A usage error points at the
 * help of the command that was run (`command`), or at `fairway --help` when none was.
 */
export function reportFailure(io: Io, e: unknown, json: FailureForm, command?: string): number {
  const print = (error: Record<string, unknown>) => {
    const value = { ok: false, error };
    if (json === 'jsonl') io.out(`${JSON.stringify(value)}\n`);
    else printJson(io, value);
  };
  if (e instanceof ReportedFailure) {
    const cause = e.failure;
    if (json === false || (isProtocolError(cause) && cause.details?.usage === true)) return reportFailure(io, cause, json, command);
    const error: Record<string, unknown> = isProtocolError(cause) ? cause.toJSON() : internalError(cause);
    print({ ...error, details: { ...(error.details as Record<string, unknown> | undefined), ...e.report } });
    return isProtocolError(cause) ? EXIT_PROTOCOL : EXIT_INTERNAL;
  }
  const help = `(see fairway ${command === undefined ? '' : `${command} `}--help)`;
  if (e instanceof UsageError) {
    if (json !== false) print({ code: e.code, message: e.message });
    else io.err(`fairway: ${e.code}: ${e.message}\n${help}`);
    return EXIT_USAGE;
  }
  if (isProtocolError(e) && e.details?.usage === true) {
    // Flag problems found below the CLI (lib/ cannot raise UsageError): still usage errors. The
    // `usage` mark is how they are told apart here, not part of the error: it is not printed.
    if (json !== false) print(withoutUsageMark(e.toJSON()));
    else io.err(`fairway: ${e.code}: ${e.message}\n${help}`);
    return EXIT_USAGE;
  }
  if (isProtocolError(e)) {
    if (json !== false) print(e.toJSON());
    else io.err(`fairway: ${e.code}: ${e.message}${whereSuffix(e)}`);
    return EXIT_PROTOCOL;
  }
  const error = internalError(e);
  if (json !== false) print(error);
  else io.err(`fairway: internal error: ${error.message}${e instanceof Error && e.stack ? `\n${e.stack}` : ''}`);
  return EXIT_INTERNAL;
}

function withoutUsageMark(error: Record<string, unknown>): Record<string, unknown> {
  const { details, ...bare } = error as { details?: Record<string, unknown> };
  if (details === undefined) return error;
  const { usage: _usage, ...rest } = details;
  return Object.keys(rest).length === 0 ? bare : { ...bare, details: rest };
}

