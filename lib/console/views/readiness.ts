/** Readiness values of the console (pure, shared with the browser). */
export type Readiness = 'ready' | 'waiting' | 'running' | 'delivering' | 'done' | 'failed' | 'cancelled';

export const READINESS: readonly Readiness[] = ['ready', 'waiting', 'running', 'delivering', 'done', 'failed', 'cancelled'];
