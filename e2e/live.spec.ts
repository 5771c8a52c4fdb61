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

test('live updates: a commit between the page render and the first poll still refreshes the page', async ({ page, browser }) => {
  const operator = await browser.newContext();
  const admin = await operator.newPage();
  await login(admin, 'administrator');
  // The page's first tip read is held until the pause is committed, so that read already
  // returns the paused tip: the page was rendered before it, and must still catch up.
  let release!: () => void;
  const committed = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/tip', async (route) => {
    await committed;
    await route.continue();
  });
  await page.goto('/');
  await expect(page.getByTestId('grants-state')).toHaveText('open');
  const paused = await admin.request.post('/api/admin/control', { data: { control: 'grants_paused', value: true, reason: 'e2e.live_first_poll' } });
  expect(paused.status()).toBe(200);
  release();
  try {
    await expect(page.getByTestId('grants-paused-banner')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('grants-state')).toHaveText('grants_paused');
  } finally {
    await admin.request.post('/api/admin/control', { data: { control: 'grants_paused', value: false, reason: 'e2e.live_first_poll_over' } });
  }
  await expect(page.getByTestId('grants-paused-banner')).toBeHidden({ timeout: 20_000 });
  await operator.close();
});
