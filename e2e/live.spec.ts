import { expect, test } from '@playwright/test';
import { login } from './helpers.ts';

test('live updates: the overview follows the ledger tip without a reload', async ({ page, browser }) => {
  await page.goto('/');
  await expect(page.getByTestId('live-status')).toContainText('live');
  // The poller has read the tip the page shows (it refreshes when the tip moves from the one it
  // last read): a pause committed before its first read would be that first read's tip.
  await expect(page.getByTestId('live-status')).toContainText('checked');
  await expect(page.getByTestId('grants-state')).toHaveText('open');

  const operator = await browser.newContext();
  const admin = await operator.newPage();
  await login(admin, 'administrator');
  const paused = await admin.request.post('/api/admin/control', { data: { control: 'grants_paused', value: true, reason: 'e2e.live_check' } });
  expect(paused.status()).toBe(200);

  try {
    // Polling (5 s) notices the new tip and re-renders the server view in place.
    await expect(page.getByTestId('grants-paused-banner')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('grants-state')).toHaveText('grants_paused');
  } finally {
    await admin.request.post('/api/admin/control', { data: { control: 'grants_paused', value: false, reason: 'e2e.live_check_over' } });
  }
  const resumed = await (await admin.request.get('/api/tip')).json();
  expect(resumed.controls.grants_paused).toBe(false);
  await expect(page.getByTestId('grants-paused-banner')).toBeHidden({ timeout: 20_000 });
  await operator.close();
});
