/** Readiness values of a Work (no imports: the console's browser code shares this list). */
export type Readiness = 'ready' | 'waiting' | 'running' | 'delivering' | 'done' | 'failed' | 'cancelled';

export const READINESS: readonly Readiness[] = ['ready', 'waiting', 'running', 'delivering', 'done', 'failed', 'cancelled'];
