/**
 * A Work's state and readiness at `asOf`: the engine's one readiness function
 * (engine/scheduler/readiness.ts, beside eligibility), and commit times.
 */
import { commitTime } from '../../../engine/receipts/committed.ts';
import type { Projection, WorkRecord } from '../../../engine/replay/index.ts';

export { READINESS, type Readiness } from './readiness.ts';
export { workReadiness as workStatus, type WorkReadiness as WorkStatus } from '../../../engine/scheduler/readiness.ts';

/** When a Work was admitted (its admission commit's decision time: its receipt's once compacted, as on the CLI). */
export function admittedAt(projection: Projection, work: WorkRecord): number {
  return commitTime(projection, work.admittedCommit) ?? work.enqueued;
}
