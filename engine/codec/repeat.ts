/**
 * The repeated parameters of a canonical ledger record, parsed once (spec 7.17 hot path).
 *
 * A submit request persists `parameters` = `{"nodes":` + the operations' text + `}`, and an
 * operations request `{"operations":` + that text + `}` (contract `request_parameters`): about a
 * third of a ledger's bytes are that second copy. When the one-pass canonical check has proven
 * the copy (`RecordSpans.repeats`, the parameters object having that one member), its text is
 * the operations' text character for character, so its value is the operations' value: the
 * record is parsed with the parameters' text left out, and the parameters object is rebuilt
 * around the operations' array (the same array, so the schema validates it once and nothing
 * holds two copies). The value deep-equals `JSON.parse(text)`.
 */
import type { JsonValue } from '../json.ts';
import type { RecordSpans } from './canonical.ts';

/** Where the repeated parameters' value sits in a record's text, and which member repeats the operations. */
export interface RepeatedParameters {
  start: number;
  end: number;
  name: 'nodes' | 'operations';
}

/** The parameters a canonical record repeats (its `{"<name>":<operations>}` object's span), or null. */
export function repeatedParameters(record: RecordSpans): RepeatedParameters | null {
  const { repeats, parameters, request } = record;
  if (repeats === null || parameters === null || request === null || parameters.size !== 1) return null;
  const span = request.get('parameters');
  if (span === undefined) return null;
  return { start: span[0], end: span[1], name: repeats === 'nodes' ? 'nodes' : 'operations' };
}

/**
 * `JSON.parse(text)` of a canonical record whose parameters (`at`) repeat its operations,
 * without parsing the copy. The caller has proven the repeat (`repeatedParameters`, or a
 * worker's verdict on the same text).
 */
export function parseRepeated(text: string, at: RepeatedParameters): JsonValue {
  return relinkRepeated(JSON.parse(`${text.slice(0, at.start)}0${text.slice(at.end)}`) as JsonValue, at);
}

/**
 * The record parsed with its repeated parameters' text replaced by `0` (`parseRepeated`, or
 * replay's reading of the same bytes: record-texts.ts), its parameters rebuilt around its operations.
 */
export function relinkRepeated(parsed: JsonValue, at: RepeatedParameters): JsonValue {
  const value = parsed as { operations: JsonValue; request: { parameters: JsonValue } };
  value.request.parameters = at.name === 'nodes' ? { nodes: value.operations } : { operations: value.operations };
  return value as unknown as JsonValue;
}
