/**
 * A console runtime over an in-memory queue seeded with the demo day (lib/demo/day.ts) at a
 * fixed wall clock: the fixture of the console's admin and runtime tests.
 */
import type { ConsoleConfig } from '../../lib/console/config.ts';
import { ConsoleRuntime } from '../../lib/console/runtime.ts';
import { seedDemoDay } from '../../lib/demo/day.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import type { LedgerStore } from '../../lib/store/types.ts';
import { MemoryStore } from './memory-store.ts';

/** The demo day's end (the console's fixed clock). */
export const DEMO_NOW = Date.UTC(2026, 4, 12, 15, 0, 0);

export const DEMO_CONSOLE_CONFIG: ConsoleConfig = { source: { kind: 'repo', repo: '/nowhere', branch: 'work-queue' }, demo: true, mode: 'local', pollMs: 5000, principal: '1001', fixedNow: DEMO_NOW };

/** A MemoryStore holding the demo day at `DEMO_NOW`. */
export async function demoStore(label: string): Promise<MemoryStore> {
  const store = new MemoryStore(label);
  await seedDemoDay(new Publisher(store), { now: DEMO_NOW });
  return store;
}

/** The console runtime of `store` under the demo configuration. */
export function demoRuntime(store: LedgerStore): ConsoleRuntime {
  return new ConsoleRuntime(DEMO_CONSOLE_CONFIG, store);
}
