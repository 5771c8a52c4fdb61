/**
 * The `console` debug namespace (docs/observability.md): one `admin` event per administrator
 * action, on the handler the `/api/admin/*` routes call: the action, the HTTP status answered and
 * the duration, never the reason, the target, the request's Authorization header or cookie.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Viewer } from '../../lib/auth/guard.ts';
import { handleAdminAction } from '../../lib/console/admin/handler.ts';
import { configureDebug, setDebugSink } from '../../lib/debug/log.ts';
import { demoRuntime, demoStore } from '../support/demo-console.ts';

const RUNTIME = Symbol.for('fairway.console.runtime');
const ADMIN: Viewer = { role: 'administrator', name: 'admin', principal: '1001' };
const SECRETS = ['ghp_consoleDebugToken0123456789', 'session-cookie-8f3a1c', 'reason-7b2e44'];
const lines: string[] = [];

beforeEach(async () => {
  (globalThis as Record<symbol, unknown>)[RUNTIME] = demoRuntime(await demoStore('debug-console'));
  setDebugSink((l) => lines.push(l));
  configureDebug({ DEBUG: 'work-queue:console' });
});
afterEach(() => {
  delete (globalThis as Record<symbol, unknown>)[RUNTIME];
  setDebugSink(null);
  configureDebug({});
  lines.length = 0;
});

function post(body: string): Request {
  return new Request('http://127.0.0.1:3000/api/admin/control', {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:3000', authorization: `Bearer ${SECRETS[0]}`, cookie: `next-auth.session-token=${SECRETS[1]}` },
    body,
  });
}

describe('console debug events', () => {
  it('one admin event per action (committed, refused, unauthenticated): action, status and ms only', async () => {
    const pause = JSON.stringify({ control: 'grants_paused', value: true, reason: SECRETS[2] });
    expect((await handleAdminAction('control', post(pause), async () => ADMIN)).status).toBe(200);
    expect((await handleAdminAction('control', post('{"control":'), async () => ADMIN)).status).toBe(400);
    expect((await handleAdminAction('control', post(pause), async () => null)).status).toBe(401);
    expect(lines.map((l) => l.replace(/ ms=\d+$/, ' ms=N'))).toEqual([
      expect.stringMatching(/^\S+Z work-queue:console admin action=control status=200 ms=N$/),
      expect.stringMatching(/^\S+Z work-queue:console admin action=control status=400 ms=N$/),
      expect.stringMatching(/^\S+Z work-queue:console admin action=control status=401 ms=N$/),
    ]);
    for (const line of lines) for (const s of SECRETS) expect(line).not.toContain(s);
  });
});
