/** Readiness values of the console (pure, shared with the browser): the engine's list. */
export { READINESS, type Readiness } from '../../../engine/scheduler/readiness-values.ts';
