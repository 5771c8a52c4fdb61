/**
 * The administrator route handlers' request bodies (lib/console/body.ts), on the handlers the
 * `/api/admin/*` routes call, over a console runtime on the demo queue: the body is read as
 * strictly as the CLI reads JSON, every refusal has its own stable code, and a refused body
 * changes nothing on the ledger.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../engine/errors.ts';
import type { Viewer } from '../../auth/guard.ts';
import { demoRuntime, demoStore } from '../../../tests/support/demo-console.ts';
import type { MemoryStore } from '../../../tests/support/memory-store.ts';
import { BODY_LIMIT } from '../body.ts';
import { handleAdminAction, handleAdminPreview } from './handler.ts';

const RUNTIME = Symbol.for('fairway.console.runtime');
const ADMIN: Viewer = { role: 'administrator', name: 'admin', principal: '1001' };
const session = (): Promise<Viewer | null> => Promise.resolve(ADMIN);

let store: MemoryStore;

beforeEach(async () => {
  store = await demoStore('admin-handler');
  (globalThis as Record<symbol, unknown>)[RUNTIME] = demoRuntime(store);
});
afterEach(() => {
  delete (globalThis as Record<symbol, unknown>)[RUNTIME];
});

function post(path: string, body: string | Uint8Array<ArrayBuffer>, type = 'application/json'): Request {
  return new Request(`http://127.0.0.1:3000${path}`, { method: 'POST', headers: { 'content-type': type, origin: 'http://127.0.0.1:3000' }, body });
}

/** Status and error of the control action on `body`, and whether the ledger moved. */
type Answer = { ok: boolean; status?: string; error?: { code: string; message?: string; details?: { reason: string } } };

async function control(body: string | Uint8Array<ArrayBuffer>, type?: string): Promise<{ status: number; json: Answer; moved: boolean }> {
  const before = store.text();
  const res = await handleAdminAction('control', post('/api/admin/control', body, type), session);
  return { status: res.status, json: (await res.json()) as Answer, moved: store.text() !== before };
}

const PAUSE = '{"control":"grants_paused","value":true,"reason":"x"}';

describe('administrator request bodies', () => {
  it('a duplicated key is input_invalid / duplicate_key, never last-wins, on the action and on the preview', async () => {
    expect(await control('{"control":"grants_paused","value":false,"value":true,"reason":"x"}')).toMatchObject({ status: 400, json: { ok: false, error: { code: 'input_invalid', details: { reason: 'duplicate_key' } } }, moved: false });
    const preview = await handleAdminPreview(post('/api/admin/preview', '{"action":"control","body":{"control":"grants_paused","value":false,"value":true,"reason":"x"}}'), session);
    expect(preview.status).toBe(400);
    expect(await preview.json()).toMatchObject({ ok: false, error: { code: 'input_invalid', details: { reason: 'duplicate_key' } } });
    // Non-canonical numbers and invalid UTF-8 are refused as the CLI refuses them.
    expect(await handleAdminAction('reprioritize', post('/api/admin/reprioritize', '{"work_ids":["c9c71e0c"],"priority":1e0,"reason":"x"}'), session).then((r) => r.json())).toMatchObject({ error: { code: 'input_invalid', details: { reason: 'noncanonical_number' } } });
    expect(await control(new Uint8Array([0x7b, 0xff, 0x7d]))).toMatchObject({ status: 400, json: { error: { code: 'input_invalid', details: { reason: 'invalid_utf8' } } }, moved: false });
  });

  it('the media type is exactly application/json (parameters allowed, a charset only UTF-8)', async () => {
    for (const type of ['application/jsonx', 'application/json-patch+json', 'application/json5', 'text/plain', 'application/json; charset=latin1']) {
      expect(await control(PAUSE, type), type).toMatchObject({ status: 415, json: { error: { code: 'json_required' } }, moved: false });
    }
    const preview = await handleAdminPreview(post('/api/admin/preview', `{"action":"control","body":${PAUSE}}`, 'application/jsonx'), session);
    expect(preview.status).toBe(415);
    expect(await control(PAUSE, 'Application/JSON; charset="UTF-8"')).toMatchObject({ status: 200, json: { ok: true, status: 'committed' }, moved: true });
  });

  it('malformed JSON, an empty body and an over-limit body each answer their own code and change nothing', async () => {
    expect(await control('{"control":')).toMatchObject({ status: 400, json: { error: { code: 'input_invalid', details: { reason: 'invalid_json' } } }, moved: false });
    expect(await control('')).toMatchObject({ status: 400, json: { error: { code: 'body_empty' } }, moved: false });
    expect(await control(' \n')).toMatchObject({ status: 400, json: { error: { code: 'body_empty' } }, moved: false });
    const big = `{"control":"grants_paused","value":true,"reason":"x","pad":"${'a'.repeat(BODY_LIMIT)}"}`;
    expect(await control(big)).toMatchObject({ status: 413, json: { error: { code: 'body_too_large' } }, moved: false });
    const preview = await handleAdminPreview(post('/api/admin/preview', big), session);
    expect(preview.status).toBe(413);
    // A well-formed body the schema refuses stays request_invalid.
    expect(await control('null')).toMatchObject({ status: 400, json: { error: { code: 'request_invalid' } }, moved: false });
    expect(await control('{"control":"grants_paused","value":true,"reason":"x","extra":1}')).toMatchObject({ status: 400, json: { error: { code: 'request_invalid' } }, moved: false });
    // The preview's envelope is as strict as the action's body: an unknown field is refused, not ignored.
    const loose = await handleAdminPreview(post('/api/admin/preview', `{"action":"control","body":${PAUSE},"publish":true}`), session);
    expect(loose.status).toBe(400);
    expect(await loose.json()).toMatchObject({ ok: false, error: { code: 'request_invalid' } });
  });
});

describe('administrator route failures', () => {
  it('an unexpected exception answers 500 internal_error without echoing its text, on the action and on the preview', async () => {
    const leak = 'EACCES: open /home/alice/secret/ledger';
    store.compareAndSwap = () => Promise.reject(new Error(leak));
    const res = await handleAdminAction('control', post('/api/admin/control', PAUSE), session);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    expect(text).not.toContain('/home/alice');
    store.read = () => Promise.reject(new Error(leak));
    (globalThis as Record<symbol, unknown>)[RUNTIME] = demoRuntime(store);
    const preview = await handleAdminPreview(post('/api/admin/preview', `{"action":"control","body":${PAUSE}}`), session);
    expect(preview.status).toBe(500);
    expect(await preview.text()).not.toContain('/home/alice');
  });

  it('a store failure answers 503 with the store\'s code and a fixed message, never its text (a remote URL, a token), on the action and on the preview', async () => {
    const leak = 'git push https://x-access-token:ghs_SECRET@git.internal.example/acme/queue.git work-queue: rejected';
    store.compareAndSwap = () => Promise.reject(new ProtocolError('store_git_failed', leak));
    const before = store.text();
    const res = await handleAdminAction('control', post('/api/admin/control', PAUSE), session);
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ ok: false, error: { code: 'store_git_failed', message: expect.stringContaining('reload the queue') } });
    expect(text).not.toMatch(/internal\.example|ghs_SECRET|https:/);
    expect(store.text()).toBe(before);
    // A fresh console whose reads fail: the preview answers the same way.
    store.read = () => Promise.reject(new ProtocolError('store_unreachable', 'cannot reach the GitHub API to read the queue branch (https://ghe.internal.example/api/v3): fetch failed'));
    (globalThis as Record<symbol, unknown>)[RUNTIME] = demoRuntime(store);
    const preview = await handleAdminPreview(post('/api/admin/preview', `{"action":"control","body":${PAUSE}}`), session);
    expect(preview.status).toBe(503);
    const previewText = await preview.text();
    expect(JSON.parse(previewText)).toMatchObject({ ok: false, error: { code: 'store_unreachable' } });
    expect(previewText).not.toContain('internal.example');
  });

  it('a verdict on the request keeps its code and message (409/422)', async () => {
    expect(await control(PAUSE)).toMatchObject({ status: 200, moved: true });
    const again = await control(PAUSE);
    expect(again).toMatchObject({ status: 409, json: { ok: false, error: { code: 'no_change' } }, moved: false });
    expect((again.json.error as { message?: string }).message).toContain('grants_paused is already true');
  });

  it('a preview on a stale view (the last read failed) answers the read\'s code, never its text', async () => {
    const runtime = (globalThis as Record<symbol, unknown>)[RUNTIME] as ReturnType<typeof demoRuntime>;
    await runtime.live();
    store.read = () => Promise.reject(new Error('EACCES: open /home/alice/secret/ledger'));
    runtime.invalidate();
    const preview = await handleAdminPreview(post('/api/admin/preview', `{"action":"control","body":${PAUSE}}`), session);
    const text = await preview.text();
    expect(JSON.parse(text)).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    expect(text).not.toContain('/home/alice');
  });
});
