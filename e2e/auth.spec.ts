import { expect, test } from '@playwright/test';
import { login, token } from './helpers.ts';

const ENDPOINTS = ['control', 'cancel-claim', 'cancel-work', 'reprioritize', 'policy', 'run-again', 'preview'];
const BODY = { control: 'grants_paused', value: true, reason: 'probe' };

test('8. without logging in, every admin endpoint refuses: 401; an observer gets 403', async ({ page, request }) => {
  for (const name of ENDPOINTS) {
    const res = await request.post(`/api/admin/${name}`, { data: BODY });
    expect(res.status(), name).toBe(401);
    expect((await res.json()).error.code).toBe('unauthenticated');
    const bare = await request.post(`/api/admin/${name}`, { headers: { 'content-type': 'text/plain' }, data: 'x' });
    expect(bare.status(), `${name} (non-JSON)`).toBe(401);
  }

  await login(page, 'observer');
  await page.goto('/admin');
  await expect(page.getByTestId('admin-locked')).toContainText('observer');
  for (const name of ENDPOINTS) {
    const res = await page.request.post(`/api/admin/${name}`, { data: BODY });
    expect(res.status(), name).toBe(403);
    expect((await res.json()).error.code).toBe('forbidden');
  }
  // Nothing was published by any of these attempts.
  const tip = await (await request.get('/api/tip')).json();
  expect(tip.controls.grants_paused).toBe(false);
});

test('a wrong login token is refused', async ({ page }) => {
  await page.goto('/login');
  await page.getByTestId('login-token').fill('not-the-token');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('login-form')).toContainText('not accepted');
  const res = await page.request.post('/api/admin/control', { data: BODY });
  expect(res.status()).toBe(401);
});

test('the login link works once: a second sign-in with the same token is refused (issue 18 §6)', async ({ browser }) => {
  const link = `/login?token=${encodeURIComponent(token('spare'))}&callbackUrl=/admin`;
  const first = await browser.newPage();
  await first.goto(link);
  await first.getByTestId('login-submit').click();
  await expect(first.getByTestId('viewer-role')).toHaveText('administrator');
  await first.close();
  const second = await browser.newPage();
  await second.goto(link);
  await second.getByTestId('login-submit').click();
  await expect(second.getByTestId('login-form')).toContainText('not accepted');
  expect((await second.request.post('/api/admin/control', { data: BODY })).status()).toBe(401);
  await second.close();
});
