/**
 * What every page does first: resolve the runtime and the (possibly pinned)
 * view, turning a failure into a stable code the page can show.
 */
import { notFound } from 'next/navigation.js';
import { INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE, isProtocolError } from '../../engine/errors.ts';
import { canRead } from '../auth/session.ts';
import type { ConsoleConfig } from './config.ts';
import { consoleRuntime } from './context.ts';
import type { ConsoleRuntime, ViewState } from './runtime.ts';

export type Loaded =
  | { ok: true; runtime: ConsoleRuntime; view: ViewState; config: ConsoleConfig }
  | { ok: false; code: string; message: string; config: ConsoleConfig | null };

export function firstParam(value: string | string[] | undefined): string | null {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v === '' ? null : v;
}

export async function loadView(at: string | null): Promise<Loaded> {
  let runtime: ConsoleRuntime;
  try {
    runtime = consoleRuntime();
  } catch (e) {
    return { ok: false, code: isProtocolError(e) ? e.code : 'console_unconfigured', message: e instanceof Error ? e.message : String(e), config: null };
  }
  if (!(await canRead(runtime.config.mode))) {
    return { ok: false, code: 'unauthenticated', message: 'sign in to view this queue (hosted mode)', config: runtime.config };
  }
  try {
    return { ok: true, runtime, view: await runtime.view(at), config: runtime.config };
  } catch (e) {
    // An unknown ?at= commit is a 404 ("unknown commit", app/not-found.tsx), not a read failure.
    if (isProtocolError(e) && e.code === 'unknown_commit') notFound();
    // Stores report read failures as ProtocolErrors; anything else is a bug. Never echo arbitrary
    // exception text (it may name paths or hosts); protocol errors are ours.
    if (isProtocolError(e)) return { ok: false, code: e.code, message: e.message, config: runtime.config };
    return { ok: false, code: INTERNAL_ERROR, message: INTERNAL_ERROR_MESSAGE, config: runtime.config };
  }
}

export { withAt } from './links.ts';

/** A dynamic route segment, decoded once (tolerates segments that arrive already decoded). */
export function routeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
