/**
 * Opt-in, timestamped debug events on stderr (operator reference, "Runtime debug logging"),
 * through the `debug` package: `DEBUG=work-queue:*` enables every namespace,
 * `DEBUG=work-queue:store,work-queue:dispatch` selects some, `DEBUG=work-queue:*,-work-queue:replay`
 * excludes one (comma or whitespace separators). `ACTIONS_RUNNER_DEBUG=true` or `RUNNER_DEBUG=1`
 * (a GitHub Actions run, or re-run, with debug logging) enables all queue namespaces; an explicit
 * `-work-queue:...` exclusion in `DEBUG` still applies.
 *
 * The only way to log is `debugEvent(namespace, event, meta)` against the catalogue in
 * events.ts, which has no free-text field: metadata is counts, flags, delays, HTTP status
 * codes and closed enums, so payloads, ids, names, paths, URLs, tokens, raw responses and
 * error messages cannot reach a line. Debug events grant no authority and are no receipt.
 *
 * A line: `2026-12-02T01:02:03.456Z work-queue:store cas outcome=conflict bytes=812 ms=4`.
 */
import createDebug, { type Debugger } from 'debug';
import { format } from 'node:util';
import { EVENTS, type EventMeta, type EventName, type FieldKind, type Namespace } from './events.ts';

export const DEBUG_PREFIX = 'work-queue:';

/** True when the environment asks for every queue event (a debug-enabled Actions run). */
export function runnerDebug(env: Readonly<Record<string, string | undefined>>): boolean {
  return (env.ACTIONS_RUNNER_DEBUG ?? '').toLowerCase() === 'true' || env.RUNNER_DEBUG === '1';
}

/** The `debug` pattern in effect for `env`: DEBUG, plus every queue namespace under runner debug. */
export function debugPattern(env: Readonly<Record<string, string | undefined>>): string {
  const own = (env.DEBUG ?? '').trim();
  if (!runnerDebug(env)) return own;
  return own === '' ? `${DEBUG_PREFIX}*` : `${own},${DEBUG_PREFIX}*`;
}

/** (Re)reads the environment; called once at load, and by tests that change it. */
let configured: string | null = null;
export function configureDebug(env: Readonly<Record<string, string | undefined>> = process.env): void {
  const pattern = debugPattern(env);
  if (pattern === configured) return;
  configured = pattern;
  createDebug.enable(pattern);
}

type Sink = (line: string) => void;

/**
 * Runs before a line is written to stderr: the CLI erases its replay progress line there
 * (cli/progress.ts), which is redrawn in place with `\r` and would otherwise start the event's line.
 */
let beforeLine: (() => void) | null = null;
export function setBeforeDebugLine(hook: (() => void) | null): void {
  beforeLine = hook;
}

const stderrSink: Sink = (line) => {
  beforeLine?.();
  process.stderr.write(`${line}\n`);
};
let sink: Sink = stderrSink;

/** Routes every debug line to `to` (tests capture events); null restores stderr. */
export function setDebugSink(to: Sink | null): void {
  sink = to ?? stderrSink;
}

const loggers = new Map<Namespace, Debugger>();

function logger(namespace: Namespace): Debugger {
  let d = loggers.get(namespace);
  if (d === undefined) {
    d = createDebug(`${DEBUG_PREFIX}${namespace}`);
    (d as Debugger & { useColors: boolean }).useColors = false; // every line starts with its ISO timestamp, on a terminal too
    d.log = (...args: unknown[]) => sink(format(...args));
    loggers.set(namespace, d);
  }
  return d;
}

export function debugEnabled(namespace: Namespace): boolean {
  return logger(namespace).enabled;
}

function rendered(kind: FieldKind, value: unknown): string {
  if (kind === 'number') return typeof value === 'number' && Number.isFinite(value) ? String(Math.round(value * 1000) / 1000) : '?';
  if (kind === 'flag') return typeof value === 'boolean' ? String(value) : '?';
  return typeof value === 'string' && kind.includes(value) ? value : '?';
}

/** The text of one event: its name, then each declared field present in `meta`, in catalogue order. */
export function formatEvent(namespace: Namespace, event: string, meta: Readonly<Record<string, unknown>>): string {
  const events = EVENTS[namespace] as Record<string, Record<string, FieldKind>>;
  if (!Object.hasOwn(events, event)) return '?';
  const fields = events[event]!;
  const parts = [event];
  for (const [name, kind] of Object.entries(fields)) {
    if (Object.hasOwn(meta, name) && meta[name] !== undefined) parts.push(`${name}=${rendered(kind, meta[name])}`);
  }
  return parts.join(' ');
}

/** Emits one debug event when its namespace is enabled. */
export function debugEvent<N extends Namespace, E extends EventName<N>>(namespace: N, event: E, meta: EventMeta<N, E>): void {
  const d = logger(namespace);
  if (!d.enabled) return;
  d('%s', formatEvent(namespace, event, meta as Readonly<Record<string, unknown>>));
}

/** Milliseconds since `started`, for `ms` fields. */
export function since(started: number): number {
  return Date.now() - started;
}

configureDebug();
