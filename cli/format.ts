/**
 * `--format` of the read commands (README "Output formats"): `table` (human lines; the default),
 * `json` (one JSON object, like `--json`) and `jsonl` (one JSON record per line, for
 * streaming into other tools). A command may add its own formats (`formatOption(extra)`).
 */
import { Option } from 'commander';
import { UsageError, type Io } from './output.ts';

export const READ_FORMATS = ['table', 'json', 'jsonl'] as const;

/** The `--format` option of a read command; `extra` extends the choices (e.g. a metrics exposition). */
export function formatOption(extra: readonly string[] = []): Option {
  return new Option('--format <format>', 'output format: table (human, default), json (one object, same as --json) or jsonl (one record per line)')
    .choices([...READ_FORMATS, ...extra]);
}

/** The format a read command prints: `--format`, else `json` for the global `--json`, else `table`. */
export function formatOf(g: { json?: boolean }, o: { format?: string }): string {
  if (o.format !== undefined) {
    if (g.json === true && o.format !== 'json') throw new UsageError(`--json and --format ${o.format} ask for two formats; give one`, 'format_conflict');
    return o.format;
  }
  return g.json === true ? 'json' : 'table';
}

/** One compact JSON record per line. */
export function printJsonl(io: Io, records: Iterable<unknown>): void {
  const lines: string[] = [];
  for (const r of records) lines.push(JSON.stringify(r));
  if (lines.length > 0) io.out(`${lines.join('\n')}\n`);
}

/** One result object as `json` (pretty, one object) or `jsonl` (the same object on one line). */
export function printRecord(io: Io, format: string, value: unknown): void {
  if (format === 'jsonl') io.out(`${JSON.stringify(value)}\n`);
  else io.out(JSON.stringify(value, null, 2));
}

// JSON.stringify escapes C0 controls (which identities cannot hold anyway) but leaves C1 controls,
// line/paragraph separators and zero-width or bidirectional formatting characters raw: a terminal
// may act on them (U+009B is CSI) or reorder the line (U+202E), so human text escapes them too.
const INVISIBLE = /[\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** `value` as JSON text that is also safe to print on a terminal (a string comes out quoted). */
export function printableJson(value: unknown): string {
  return JSON.stringify(value).replace(INVISIBLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
