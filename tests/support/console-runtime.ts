/**
 * Route handlers read the process-wide console runtime (lib/console/context.ts keeps it on
 * `globalThis` under this symbol); a test installs its own and drops it with `resetRuntime`.
 */
import type { ConsoleRuntime } from '../../lib/console/runtime.ts';

export function installConsoleRuntime(runtime: ConsoleRuntime): void {
  (globalThis as Record<symbol, unknown>)[Symbol.for('fairway.console.runtime')] = runtime;
}
