/**
 * The per-commit context handed to every operation handler: where we are in
 * the chain and who asked. Handlers mutate `state`; the envelope was already
 * validated (schema, role, fingerprint, epoch) by `apply.ts`.
 */
import type { QueueCommit, QueueOperation } from '../schema/index.ts';
import type { ReplayState } from '../state/state.ts';
import type { RecordMeasures } from './measures.ts';
import type { DefinitionSource } from '../state/definitions.ts';

export interface CommitContext {
  state: ReplayState;
  commit: QueueCommit;
  ordinal: number;
  /** Index of the operation being applied. */
  index: number;
  line?: number;
  /** What the record stage measured of this commit's record (measures.ts); the fold measures itself when absent. */
  measures?: RecordMeasures | null;
  /** Where this commit's Work definitions are read back from once folded (state/definitions.ts); kept as values when absent. */
  definitions?: DefinitionSource;
}

export type OperationOf<K extends QueueOperation['kind']> = Extract<QueueOperation, { kind: K }>;

export function where(ctx: CommitContext): { commit: string; operation: number; line?: number } {
  return ctx.line === undefined
    ? { commit: ctx.commit.id, operation: ctx.index }
    : { commit: ctx.commit.id, operation: ctx.index, line: ctx.line };
}
