/**
 * `POST /api/whatif` (the real route handler): the session is checked before the body is read
 * (hosted mode: no session → 401, the body never parsed), and the body is read as the admin
 * routes read theirs (lib/console/body.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ProtocolError } from '../../engine/errors.ts';
import { POST } from '../../app/api/whatif/route.ts';
import { DEMO_CONSOLE_CONFIG, demoStore } from '../../tests/support/demo-console.ts';
import { ConsoleRuntime } from './runtime.ts';
import { currentSettings } from './views/whatif.ts';

const RUNTIME = Symbol.for('fairway.console.runtime');

async function plant(mode: 'local' | 'hosted'): Promise<ConsoleRuntime> {
  const runtime = new ConsoleRuntime({ ...DEMO_CONSOLE_CONFIG, mode }, await demoStore(`whatif-${mode}`));
  (globalThis as Record<symbol, unknown>)[RUNTIME] = runtime;
  return runtime;
}
afterEach(() => {
  delete (globalThis as Record<symbol, unknown>)[RUNTIME];
});

function post(body: string, type = 'application/json'): Request {
  return new Request('http://127.0.0.1:3000/api/whatif', { method: 'POST', headers: { 'content-type': type }, body });
}

describe('POST /api/whatif', () => {
  it('hosted mode without a session: 401 before the body is read, whatever the body', async () => {
    await plant('hosted');
    for (const body of ['{"pool":', '', `{"pool":"default","pad":"${'a'.repeat(1 << 20)}"}`]) {
      const request = post(body);
      const res = await POST(request);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
      expect(request.bodyUsed).toBe(false);
    }
  });

  it('local mode: simulates a valid request, and refuses a duplicated key or malformed JSON with the admin routes\' codes', async () => {
    const runtime = await plant('local');
    const settings = currentSettings((await runtime.live()).projection);
    const ok = await POST(post(JSON.stringify({ pool: 'default', grants: 3, settings })));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ ok: true, result: { pool: 'default' } });
    const dup = await POST(post(`{"pool":"default","grants":3,"grants":4,"settings":${JSON.stringify(settings)}}`));
    expect(dup.status).toBe(400);
    expect(await dup.json()).toMatchObject({ ok: false, error: { code: 'input_invalid', details: { reason: 'duplicate_key' } } });
    const bad = await POST(post('{"pool":'));
    expect(await bad.json()).toMatchObject({ ok: false, error: { code: 'input_invalid', details: { reason: 'invalid_json' } } });
    expect((await POST(post('', 'application/json'))).status).toBe(400);
    expect((await POST(post('{}', 'text/plain'))).status).toBe(415);
    // A time-travel commit the ledger does not hold is a 404 with a stable code, as on the pages.
    const unknown = await POST(post(JSON.stringify({ pool: 'default', grants: 3, settings, at: 'q_nope' })));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ ok: false, error: { code: 'unknown_commit' } });
  });

  it('a ledger read failure answers 503 with the read\'s code, never the store\'s message', async () => {
    const runtime = await plant('local');
    const settings = currentSettings((await runtime.live()).projection);
    // A fresh runtime (no last good read) on a store that cannot be read.
    const failing = new ConsoleRuntime({ ...DEMO_CONSOLE_CONFIG, mode: 'local' }, runtime.store);
    runtime.store.read = () => Promise.reject(new ProtocolError('store_unreachable', 'git fetch https://token@internal.example/queue.git failed'));
    (globalThis as Record<symbol, unknown>)[RUNTIME] = failing;
    const res = await POST(post(JSON.stringify({ pool: 'default', grants: 3, settings })));
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ ok: false, error: { code: 'store_unreachable' } });
    expect(text).not.toContain('internal.example');
  });
});
