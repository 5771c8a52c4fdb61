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
  /** What the record stage measured of this commit's operations, when it ran elsewhere (measures.ts). */
  measures?: RecordMeasures;
}

export type OperationOf<K extends QueueOperation['kind']> = Extract<QueueOperation, { kind: K }>;

export function where(ctx: CommitContext): { commit: string; operation: number; line?: number } {
  return ctx.line === undefined
    ? { commit: ctx.commit.id, operation: ctx.index }
    : { commit: ctx.commit.id, operation: ctx.index, line: ctx.line };
}
