/**
 * Every answer of the console's /api routes that is not a 200 carries `cache-control: no-store`
 * (lib/console/body.ts `errorResponse`), as their 200s and 503s do: a refusal (no session), a bug
 * (500) or a bad request must not be kept by a browser or proxy and served again. The routes are
 * found under app/api (next-auth's own endpoints aside), so a new one is checked too; each real
 * handler is called under the ways a request fails before or while it reads the ledger.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ProtocolError } from '../../engine/errors.ts';
import type { Viewer } from '../auth/guard.ts';
import type { LedgerStore } from '../store/types.ts';
import { DEMO_CONSOLE_CONFIG, demoStore } from '../../tests/support/demo-console.ts';
import { installConsoleRuntime } from '../../tests/support/console-runtime.ts';
import { handleAdminAction, handleAdminPreview } from './admin/handler.ts';
import { resetRuntime } from './context.ts';
import { ConsoleRuntime } from './runtime.ts';
import { currentSettings } from './views/whatif.ts';

type Handler = (request: Request) => Promise<Response>;

const API = fileURLToPath(new URL('../../app/api/', import.meta.url));

/** Every route module under app/api but next-auth's: `admin/control`, `tip`, … */
function routes(dir = API): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'auth' ? [] : routes(path);
    return entry.name === 'route.ts' ? [relative(API, dir)] : [];
  });
}

/** A store whose reads fail with `error` (a ProtocolError: the store failed; anything else: a bug). */
function failingStore(error: Error): LedgerStore {
  return {
    label: 'failing',
    read: () => Promise.reject(error),
    compareAndSwap: () => Promise.reject(error),
    readDefaultBranchFile: () => Promise.resolve(null),
  };
}

afterEach(resetRuntime);

describe('/api routes: every non-200 answer is no-store', () => {
  it('no session (hosted), a bug reading the ledger (500), an unreachable store (503) and a bad request (400), on every route', async () => {
    const names = routes();
    expect(names).toEqual(expect.arrayContaining(['tip', 'targets', 'whatif', 'admin/control', 'admin/preview']));
    const settings = currentSettings((await new ConsoleRuntime(DEMO_CONSOLE_CONFIG, await demoStore('no-store')).live()).projection);
    const whatIf = JSON.stringify({ pool: 'default', grants: 3, settings });

    const scenarios: Array<{ name: string; runtime: () => Promise<ConsoleRuntime>; request: (route: string) => Request }> = [
      { name: 'hosted, no session', runtime: async () => new ConsoleRuntime({ ...DEMO_CONSOLE_CONFIG, mode: 'hosted' }, await demoStore('no-store-hosted')), request: (r) => post(r, whatIf) },
      { name: 'a bug reading the ledger', runtime: () => Promise.resolve(new ConsoleRuntime(DEMO_CONSOLE_CONFIG, failingStore(new TypeError('a bug')))), request: (r) => post(r, whatIf) },
      { name: 'store unreachable', runtime: () => Promise.resolve(new ConsoleRuntime(DEMO_CONSOLE_CONFIG, failingStore(new ProtocolError('store_unreachable', 'connection reset')))), request: (r) => post(r, whatIf) },
      { name: 'bad request', runtime: async () => new ConsoleRuntime(DEMO_CONSOLE_CONFIG, await demoStore('no-store-bad')), request: (r) => post(r, '{"pool":', `?${new URLSearchParams(Array.from({ length: 257 }, (_, i): [string, string] => ['work_id', `w${i}`])).toString()}`) },
    ];
    const seen: Record<string, Record<string, number>> = {};
    for (const scenario of scenarios) {
      for (const route of names) {
        installConsoleRuntime(await scenario.runtime());
        const module = (await import(/* @vite-ignore */ pathToFileURL(join(API, route, 'route.ts')).href)) as { GET?: Handler; POST?: Handler };
        for (const [method, handler] of Object.entries(module).filter(([k]) => k === 'GET' || k === 'POST') as Array<[string, Handler]>) {
          const request = scenario.request(route);
          const res = await handler(method === 'GET' ? new Request(request.url) : request);
          (seen[scenario.name] ??= {})[`${method} /api/${route}`] = res.status;
          if (res.status !== 200) expect(res.headers.get('cache-control'), `${scenario.name}: ${method} /api/${route} ${res.status}`).toBe('no-store');
        }
        resetRuntime();
      }
    }
    // The answers checked are the refusals each scenario is about (the test cannot pass on 200s alone).
    for (const route of ['GET /api/tip', 'GET /api/targets', 'POST /api/whatif', 'POST /api/admin/control']) expect(seen['hosted, no session']![route], route).toBe(401);
    for (const route of ['GET /api/tip', 'GET /api/targets', 'POST /api/whatif']) {
      expect(seen['a bug reading the ledger']![route], route).toBe(500);
      expect(seen['store unreachable']![route], route).toBe(503);
    }
    expect(seen['bad request']!['GET /api/targets']).toBe(400);
    expect(seen['bad request']!['POST /api/whatif']).toBe(400);
  });
});

describe('/api/admin/*: every non-200 answer is no-store', () => {
  // The routes call these handlers with the NextAuth session; here the handlers are handed one.
  const as = (viewer: Viewer | null) => (): Promise<Viewer | null> => Promise.resolve(viewer);
  const ADMIN: Viewer = { role: 'administrator', name: 'admin', principal: '1001' };
  const PAUSE = '{"control":"grants_paused","value":true,"reason":"x"}';

  it('observer (403), bad body (400, 415), a refused action (409), a bug (500) and an unreachable store (503), action and preview alike', async () => {
    const cases: Array<{ status: number; store: () => Promise<LedgerStore>; viewer: Viewer | null; body: string; type?: string }> = [
      { status: 401, store: () => demoStore('admin-401'), viewer: null, body: PAUSE },
      { status: 403, store: () => demoStore('admin-403'), viewer: { ...ADMIN, role: 'observer' }, body: PAUSE },
      { status: 415, store: () => demoStore('admin-415'), viewer: ADMIN, body: PAUSE, type: 'text/plain' },
      { status: 400, store: () => demoStore('admin-400'), viewer: ADMIN, body: '{"control":' },
      { status: 409, store: () => demoStore('admin-409'), viewer: ADMIN, body: '{"control":"grants_paused","value":false,"reason":"x"}' },
      { status: 500, store: () => Promise.resolve(failingStore(new TypeError('a bug'))), viewer: ADMIN, body: PAUSE },
      { status: 503, store: () => Promise.resolve(failingStore(new ProtocolError('store_unreachable', 'connection reset'))), viewer: ADMIN, body: PAUSE },
    ];
    for (const c of cases) {
      for (const preview of [false, true]) {
        installConsoleRuntime(new ConsoleRuntime(DEMO_CONSOLE_CONFIG, await c.store()));
        const path = preview ? '/api/admin/preview' : '/api/admin/control';
        const request = new Request(`http://127.0.0.1:3000${path}`, {
          method: 'POST', headers: { 'content-type': c.type ?? 'application/json', origin: 'http://127.0.0.1:3000' },
          body: preview && c.status !== 400 ? `{"action":"control","body":${c.body}}` : c.body,
        });
        const res = preview ? await handleAdminPreview(request, as(c.viewer)) : await handleAdminAction('control', request, as(c.viewer));
        expect(res.status, `${path} ${c.status}`).toBe(c.status);
        expect(res.headers.get('cache-control'), `${path} ${c.status}`).toBe('no-store');
        resetRuntime();
      }
    }
  });
});

function post(route: string, body: string, query = '?work_id=w'): Request {
  return new Request(`http://127.0.0.1:3000/api/${route}${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}
