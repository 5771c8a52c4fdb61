/**
 * `currentViewer` (lib/auth/session.ts) on a decoded next-auth session: in local mode the role is
 * the start-up configuration, so a session signed in by another start of the console (a stable
 * NEXTAUTH_SECRET keeps it decodable) is nobody's, and an administrator session is honoured only
 * while the console runs with --admin; in hosted mode the role file decides on every request.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONFIG_ENV, encodeConfig } from '../console/config.ts';
import { DEMO_CONSOLE_CONFIG } from '../../tests/support/demo-console.ts';
import { consoleStartId, OBSERVER_TOKEN_HASH_ENV, TOKEN_EXPIRES_ENV, TOKEN_HASH_ENV, tokenHash } from './token.ts';

const session = vi.hoisted(() => ({ current: null as unknown }));
vi.mock('next-auth', () => ({ getServerSession: () => Promise.resolve(session.current) }));
const { currentViewer } = await import('./session.ts');

const KEYS = [CONFIG_ENV, TOKEN_HASH_ENV, OBSERVER_TOKEN_HASH_ENV, TOKEN_EXPIRES_ENV, 'FAIRWAY_ROLES_FILE'] as const;
let saved: Record<string, string | undefined>;

/** What `startConsole` writes to the environment (lib/console/server.ts). */
function start(admin: boolean, token: string, expires: number): void {
  process.env[CONFIG_ENV] = encodeConfig({ ...DEMO_CONSOLE_CONFIG, admin });
  process.env[TOKEN_HASH_ENV] = tokenHash(token);
  process.env[OBSERVER_TOKEN_HASH_ENV] = '';
  process.env[TOKEN_EXPIRES_ENV] = String(expires);
}

beforeEach(() => {
  saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
});
afterEach(() => {
  for (const k of KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  session.current = null;
});

describe('local-mode sessions', () => {
  it('a session of this start keeps its role; one another start signed in is refused', async () => {
    start(true, 'first-token', 1_000);
    session.current = { user: { name: 'local administrator', role: 'administrator', principal: '1001', start: consoleStartId() } };
    expect(await currentViewer()).toMatchObject({ role: 'administrator', principal: '1001' });
    // Restarted without --admin: the earlier administrator session no longer acts.
    start(false, 'second-token', 2_000);
    expect(await currentViewer()).toBeNull();
    // A session that names no start (or an observer of another start) is refused too.
    session.current = { user: { name: 'x', role: 'observer', principal: '1001' } };
    expect(await currentViewer()).toBeNull();
    session.current = { user: { name: 'local observer', role: 'observer', principal: '1001', start: consoleStartId() } };
    expect(await currentViewer()).toMatchObject({ role: 'observer' });
  });

  it('an administrator session is honoured only while the console runs with --admin', async () => {
    start(false, 'token', 1_000);
    session.current = { user: { name: 'a', role: 'administrator', principal: '1001', start: consoleStartId() } };
    expect(await currentViewer()).toBeNull();
  });
});

describe('hosted-mode sessions', () => {
  it('the role file decides on every request: a demoted administrator acts no more, a removed one is nobody', async () => {
    process.env[CONFIG_ENV] = encodeConfig({ ...DEMO_CONSOLE_CONFIG, mode: 'hosted' });
    const file = join(mkdtempSync(join(tmpdir(), 'fairway-roles-')), 'roles.json');
    process.env.FAIRWAY_ROLES_FILE = file;
    session.current = { user: { name: 'octo', role: 'administrator', principal: '1001', start: null } };
    writeFileSync(file, '{"administrators": ["1001"]}');
    expect(await currentViewer()).toMatchObject({ role: 'administrator', principal: '1001' });
    writeFileSync(file, '{"observers": ["1001"]}');
    expect(await currentViewer()).toMatchObject({ role: 'observer', principal: '1001' });
    writeFileSync(file, '{"administrators": ["2002"]}');
    expect(await currentViewer()).toBeNull();
  });
});
