/**
 * The process-wide console runtime. It lives on `globalThis` because the
 * Next.js server bundles its own copy of these modules: every route and page
 * must share one store, one read cache and one Publisher.
 */
import { ProtocolError } from '../../engine/errors.ts';
import { readConfig } from './config.ts';
import { ConsoleRuntime } from './runtime.ts';
import { openConsoleStore } from './store.ts';

const KEY = Symbol.for('fairway.console.runtime');

type Holder = { [KEY]?: ConsoleRuntime };

export function consoleRuntime(): ConsoleRuntime {
  const holder = globalThis as Holder;
  const existing = holder[KEY];
  if (existing !== undefined) return existing;
  const config = readConfig();
  if (config === null) {
    throw new ProtocolError('console_unconfigured', 'start the console with `fairway console` (or `npm start`), which configures its queue');
  }
  const runtime = new ConsoleRuntime(config, openConsoleStore(config.source));
  holder[KEY] = runtime;
  return runtime;
}

/** Drops the runtime so the next request builds one from the current configuration. */
export function resetRuntime(): void {
  delete (globalThis as Holder)[KEY];
}
