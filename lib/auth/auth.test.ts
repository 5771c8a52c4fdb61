import { describe, expect, it } from 'vitest';
import { checkAdministrator, type Viewer } from './guard.ts';
import { parseRoleFile, roleFor } from './roles.ts';
import { authOptions } from './options.ts';
import { OBSERVER_TOKEN_HASH_ENV, TOKEN_EXPIRES_ENV, TOKEN_HASH_ENV, newLoginToken, redeemLoginRole, redeemLoginToken, resetRedeemedTokens, tokenHash, verifyLoginToken } from './token.ts';

const admin: Viewer = { role: 'administrator', name: 'a', principal: '1001' };
const observer: Viewer = { role: 'observer', name: 'o', principal: '2002' };

function request(headers: Record<string, string> = { 'content-type': 'application/json' }) {
  return { headers: new Headers(headers), url: 'http://127.0.0.1:3000/api/admin/control' };
}

describe('administrator guard', () => {
  it('answers 401 without a session and 403 for an observer', () => {
    expect(checkAdministrator(null, request())).toMatchObject({ ok: false, status: 401, code: 'unauthenticated' });
    expect(checkAdministrator(observer, request())).toMatchObject({ ok: false, status: 403, code: 'forbidden' });
    expect(checkAdministrator(admin, request())).toMatchObject({ ok: true });
  });

  it('refuses cross-origin and non-JSON requests from an administrator session', () => {
    expect(checkAdministrator(admin, request({ 'content-type': 'application/json', origin: 'https://evil.example' }))).toMatchObject({ status: 403, code: 'cross_origin' });
    expect(checkAdministrator(admin, request({ 'content-type': 'application/json', origin: 'http://127.0.0.1:3000' }))).toMatchObject({ ok: true });
    expect(checkAdministrator(admin, request({ 'content-type': 'text/plain' }))).toMatchObject({ status: 415 });
    // Exactly application/json, never a prefix of it.
    for (const type of ['application/jsonx', 'application/json-patch+json', 'application/json; charset=iso-8859-1']) {
      expect(checkAdministrator(admin, request({ 'content-type': type })), type).toMatchObject({ status: 415, code: 'json_required' });
    }
    expect(checkAdministrator(admin, request({ 'content-type': 'application/json; charset=utf-8' }))).toMatchObject({ ok: true });
  });
});

describe('login token', () => {
  it('accepts only the token whose hash the server holds', () => {
    const token = newLoginToken();
    const env = { [TOKEN_HASH_ENV]: tokenHash(token) };
    expect(verifyLoginToken(token, env)).toBe(true);
    expect(verifyLoginToken(`${token}x`, env)).toBe(false);
    expect(verifyLoginToken('', env)).toBe(false);
    expect(verifyLoginToken(undefined, env)).toBe(false);
    expect(verifyLoginToken(token, {})).toBe(false);
  });
});

describe('role file', () => {
  it('maps numeric GitHub ids to roles; unknown users get default_role', () => {
    const file = parseRoleFile('{"administrators":["1001"],"observers":["2002"]}');
    expect(roleFor(file, '1001')).toBe('administrator');
    expect(roleFor(file, '2002')).toBe('observer');
    expect(roleFor(file, '3003')).toBeNull();
    expect(roleFor(parseRoleFile('{"default_role":"observer"}'), '3003')).toBe('observer');
    expect(() => parseRoleFile('{"administrators":[1001]}')).toThrow();
    expect(() => parseRoleFile('{"admins":["1"]}')).toThrow();
  });
});

describe('single-use login token (issue 18 §6)', () => {
  it('signs in once; the same token is refused the second time, other listed tokens still work once', () => {
    const [a, b] = [newLoginToken(), newLoginToken()];
    const env = { [TOKEN_HASH_ENV]: `${tokenHash(a)},${tokenHash(b)}` };
    const redeemed = new Set<string>();
    expect(redeemLoginToken(a, env, 0, redeemed)).toBe(true);
    expect(redeemLoginToken(a, env, 0, redeemed)).toBe(false);
    expect(redeemLoginToken('wrong', env, 0, redeemed)).toBe(false);
    expect(redeemLoginToken(b, env, 0, redeemed)).toBe(true);
    expect(redeemLoginToken(b, env, 0, redeemed)).toBe(false);
  });

  it('refuses a token after its expiry', () => {
    const token = newLoginToken();
    const env = { [TOKEN_HASH_ENV]: tokenHash(token), [TOKEN_EXPIRES_ENV]: '1000' };
    expect(verifyLoginToken(token, env, 999)).toBe(true);
    expect(redeemLoginToken(token, env, 1000, new Set())).toBe(false);
    expect(redeemLoginToken(token, { ...env, [TOKEN_EXPIRES_ENV]: 'soon' }, 0, new Set())).toBe(false);
    expect(redeemLoginToken(token, env, 999, new Set())).toBe(true);
  });

  it('the next-auth credentials provider redeems the token: the second sign-in with one link fails', async () => {
    const token = newLoginToken();
    process.env[TOKEN_HASH_ENV] = tokenHash(token);
    delete process.env[TOKEN_EXPIRES_ENV];
    resetRedeemedTokens();
    const provider = authOptions().providers[0] as unknown as { options: { authorize: (c: Record<string, string>) => Promise<unknown> } };
    // Started without --admin (no configuration here): the token signs in as observer, whatever the form sends.
    expect(await provider.options.authorize({ token, role: 'administrator' })).toMatchObject({ role: 'observer' });
    expect(await provider.options.authorize({ token, role: 'administrator' })).toBeNull();
  });

  it('the role is configuration (issue 14 §5): start-up tokens are administrator only with --admin; observer tokens never', () => {
    const main = newLoginToken();
    const other = newLoginToken();
    const reader = newLoginToken();
    const env = { [TOKEN_HASH_ENV]: [tokenHash(main), tokenHash(other)].join(','), [OBSERVER_TOKEN_HASH_ENV]: tokenHash(reader) };
    const redeemed = new Set<string>();
    expect(redeemLoginRole(main, true, env, 0, redeemed)).toBe('administrator');
    expect(redeemLoginRole(main, true, env, 0, redeemed)).toBeNull(); // single-use
    expect(redeemLoginRole(other, false, env, 0, redeemed)).toBe('observer');
    expect(redeemLoginRole(reader, true, env, 0, redeemed)).toBe('observer');
    expect(redeemLoginRole(reader, true, env, 0, redeemed)).toBeNull();
    expect(redeemLoginRole('guess', true, env, 0, redeemed)).toBeNull();
    expect(redeemLoginRole(newLoginToken(), true, { ...env, [TOKEN_EXPIRES_ENV]: '1' }, 5, new Set())).toBeNull();
  });
});
