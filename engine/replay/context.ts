/**
 * The per-commit context handed to every operation handler: where we are in
 * the chain and who asked. Handlers mutate `state`; the envelope was already
 * validated (schema, role, fingerprint, epoch) by `apply.ts`.
 */
import type { QueueCommit, QueueOperation } from '../schema/index.ts';
import type { ReplayState } from '../state/state.ts';
import type { RecordMeasures } from './measures.ts';

export interface CommitContext {
  state: ReplayState;
  commit: QueueCommit;
  ordinal: number;
  /** Index of the operation being applied. */
  index: number;
  line?: number;
  /** What the record stage measured of this commit's record (measures.ts); the fold measures itself when absent. */
  measures?: RecordMeasures | null;
}

export type OperationOf<K extends QueueOperation['kind']> = Extract<QueueOperation, { kind: K }>;

export function where(ctx: CommitContext): { commit: string; operation: number; line?: number } {
  return ctx.line === undefined
    ? { commit: ctx.commit.id, operation: ctx.index }
    : { commit: ctx.commit.id, operation: ctx.index, line: ctx.line };
}
