/**
 * A Work's definition read back from its admitting record instead of kept (spec 7.17 hot path).
 *
 * Every admitted Work's definition is the operation as its submit wrote it: its payload, edges
 * and identities. Kept as parsed, a 64 MiB ledger's definitions are about a tenth of the
 * replay state's heap but several objects per Work, and the fold never reads them after
 * admission (what it needs is on the record: `executionRef`, `backingIssue`, `replacementOf`,
 * the measured payload size). Each of them survives the young generation and is copied there
 * and again into the old one: reading them back made threaded replay of a 64 MiB ledger 3-5%
 * faster and its time per record the same as at 16 MiB (docs/performance.md, "fourteenth
 * round"). A read costs the parse of the Work's own operation (replay/definitions.ts), which a
 * kept definition did not.
 *
 * So replay (replay.ts, through `CommitContext.definitions`) gives each Work it admits from a
 * remembered record a `definition` accessor: reading it parses the admitting record's
 * operation again from the ledger records the projection keeps anyway (ledger-records.ts).
 * The accessor is an own enumerable property, so a spread, `Object.entries` or
 * `JSON.stringify` of the record sees the definition as a value; its source rides on the
 * record's position, in a private field (no copy or serialisation carries it). A record built
 * any other way (a writer folding its own commit, a checkpoint's restored Work, the
 * simulator) keeps its definition as a value.
 */
import type { JsonObject } from '../json.ts';
import type { Position, WorkRecord } from './state.ts';
import { unforked } from './unforked.ts';

/** Where definitions are read back from: operation `operation` of commit `commitId`'s record. */
export interface DefinitionSource {
  workDefinition(commitId: string, operation: number): JsonObject;
}

/**
 * A lazily defined Work's position: it carries the definition's source, in a private field (no
 * copy, comparison or serialisation of the position sees it; it is one object the record has
 * anyway, so the record needs no property of its own for it).
 */
class SourcedPosition implements Position {
  readonly #source: DefinitionSource;

  constructor(
    public ordinal: number,
    public operation: number,
    source: DefinitionSource,
  ) {
    this.#source = source;
  }

  static sourceOf(position: Position): DefinitionSource | undefined {
    return position instanceof SourcedPosition ? position.#source : undefined;
  }
}

/** Shared by every lazily defined record (one accessor pair: the records keep one hidden class). */
function readDefinition(this: WorkRecord): JsonObject {
  // A fork's view of the record (or of its position) reaches here: read the base objects.
  const record = unforked(this);
  const position = unforked(record.position);
  return SourcedPosition.sourceOf(position)!.workDefinition(record.admittedCommit, position.operation);
}

const DEFINITION: PropertyDescriptor = { get: readDefinition, enumerable: true, configurable: true };

/** The position of operation `operation` of the commit at `ordinal`, for a record whose definition `source` keeps. */
export function sourcedPosition(ordinal: number, operation: number, source: DefinitionSource): Position {
  return new SourcedPosition(ordinal, operation, source);
}

/**
 * Whether `record`'s definition is read back from its admitting record: replay admitted it from a
 * schema-checked Work operation (so its payload is an object), and reading it parses that record.
 */
export function definedBySource(record: WorkRecord): boolean {
  return SourcedPosition.sourceOf(unforked(unforked(record).position)) !== undefined;
}

/**
 * Completes `record` (every field but `definition`; its position from `sourcedPosition`) with a
 * definition read from the position's source when asked: operation `record.position.operation`
 * of the record of `record.admittedCommit`.
 */
export function withSourcedDefinition(record: Omit<WorkRecord, 'definition'>): WorkRecord {
  Object.defineProperty(record, 'definition', DEFINITION);
  return record as WorkRecord;
}
