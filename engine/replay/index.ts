export { appendLedger, createState, emptyProjection, refreshLedger, replayLedger } from './replay.ts';
export type { ReplayProgress } from './replay.ts';
export { Projection } from './projection.ts';
export { summarize } from './summary.ts';
export type { ProjectionSummary } from './summary.ts';
export { orderChain, CausalChain } from './chain.ts';
export type * from './state.ts';
export { buildCheckpointCommit, checkpointSource, checkpointState, historyDigest } from './checkpoint.ts';
