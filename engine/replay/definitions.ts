/**
 * The Work definitions of a projection's remembered records (state/definitions.ts): a Work's
 * definition is operation `operation` of its admitting commit's record, parsed again when read.
 *
 * The last record parsed is kept, so reading every Work of a submit, or every Work in
 * admission order (a checkpoint, the Issue projector, a submit's receipt), parses each record
 * once. Repeated reads of one Work between reads of others parse its record each time.
 */
import type { JsonObject } from '../json.ts';
import type { DefinitionSource } from '../state/definitions.ts';

/** What the definitions are read from: a remembered commit's record text (Projection.text). */
export interface RecordText {
  text(id: string): string | undefined;
}

export class RecordDefinitions implements DefinitionSource {
  private commitId: string | null = null;
  private operations: JsonObject[] = [];

  constructor(private readonly records: RecordText) {}

  workDefinition(commitId: string, operation: number): JsonObject {
    if (commitId !== this.commitId) {
      const text = this.records.text(commitId);
      // The fold admitted the Work from this record and the projection remembered it: anything else is a bug.
      if (text === undefined) throw new Error(`RecordDefinitions: no record of commit ${commitId}, which admitted a Work`);
      this.operations = (JSON.parse(text) as { operations: JsonObject[] }).operations;
      this.commitId = commitId;
    }
    const definition = this.operations[operation];
    if (definition?.kind !== 'Work') throw new Error(`RecordDefinitions: operation ${operation} of commit ${commitId} is not a Work`);
    return definition;
  }
}
