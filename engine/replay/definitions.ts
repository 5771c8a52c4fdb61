/**
 * The Work definitions of a projection's remembered records (state/definitions.ts): a Work's
 * definition is operation `operation` of its admitting commit's record, parsed again when read.
 *
 * A record is read one operation at a time, whether it is kept as bytes (every store and file
 * replays bytes) or as text (a prefix replay, an appended line, a test's string input): the first
 * read of a record finds where its operations sit (codec/operation-spans.ts, one pass over it;
 * the spans, a few numbers per operation, are kept), and each read parses its operation's text
 * alone. So reading a grant's assignments costs the size of their Works, whichever records
 * admitted them, and nothing parsed is kept. A record whose spans are not found (its
 * `operations` member named with an escape) is parsed whole; the last few are kept.
 */
import { operationSpans, operationSpansOfText } from '../codec/operation-spans.ts';
import type { JsonObject } from '../json.ts';
import type { DefinitionSource } from '../state/definitions.ts';

/** What the definitions are read from: a remembered commit's record as kept (Projection.commitRecord). */
export interface KeptRecords {
  record(id: string): Uint8Array | string | undefined;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Records whose operation spans are kept (a few numbers each); past it the oldest are forgotten. */
const KEPT_SPANS = 65_536;
/** Records parsed whole (no spans found) whose operations are kept. */
const KEPT_PARSED = 4;
/** Spans of a record where none were found: it is parsed whole. */
const NO_SPANS = new Int32Array(0);

export class RecordDefinitions implements DefinitionSource {
  private readonly spans = new Map<string, Int32Array>();
  private readonly parsed = new Map<string, JsonObject[]>();

  constructor(private readonly records: KeptRecords) {}

  workDefinition(commitId: string, operation: number): JsonObject {
    const record = this.records.record(commitId);
    // The fold admitted the Work from this record and the projection remembered it: anything else is a bug.
    if (record === undefined) throw new Error(`RecordDefinitions: no record of commit ${commitId}, which admitted a Work`);
    let spans = this.spans.get(commitId);
    if (spans === undefined) {
      if (this.spans.size >= KEPT_SPANS) this.spans.delete(this.spans.keys().next().value!);
      spans = (typeof record === 'string' ? operationSpansOfText(record) : operationSpans(record)) ?? NO_SPANS;
      this.spans.set(commitId, spans);
    }
    const definition = 2 * operation + 1 < spans.length
      ? JSON.parse(typeof record === 'string'
        ? record.slice(spans[2 * operation]!, spans[2 * operation + 1]!)
        : decoder.decode(record.subarray(spans[2 * operation]!, spans[2 * operation + 1]!))) as JsonObject
      : this.parsedOperations(commitId, record)[operation];
    if (definition?.kind !== 'Work') throw new Error(`RecordDefinitions: operation ${operation} of commit ${commitId} is not a Work`);
    return definition;
  }

  private parsedOperations(commitId: string, record: Uint8Array | string): JsonObject[] {
    let operations = this.parsed.get(commitId);
    if (operations === undefined) {
      if (this.parsed.size >= KEPT_PARSED) this.parsed.delete(this.parsed.keys().next().value!);
      operations = (JSON.parse(typeof record === 'string' ? record : decoder.decode(record)) as { operations: JsonObject[] }).operations;
      this.parsed.set(commitId, operations);
    }
    return operations;
  }
}
