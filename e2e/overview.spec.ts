import { expect, test } from '@playwright/test';
import { shot } from './helpers.ts';

test('1. the overview shows the counts and the paused-grants history', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('demo-banner')).toBeVisible();
  await expect(page.getByTestId('counts')).toBeVisible();
  const available = Number(await page.getByTestId('count-available').innerText());
  const completed = Number(await page.getByTestId('count-completed').innerText());
  expect(available).toBeGreaterThan(500);
  expect(completed).toBeGreaterThan(5);
  expect(Number(await page.getByTestId('readiness-ready').innerText())).toBeGreaterThan(400);
  const history = page.getByTestId('pause-history');
  await expect(history).toContainText('grants_paused');
  await expect(history).toContainText('incident.runner_outage');
  await expect(page.getByTestId('grants-state')).toHaveText('open');
  await expect(page.getByTestId('recent')).toContainText('dispatch');
  await shot(page, 'overview');

  // Time travel: the overview as of the pause commit shows grants paused loudly.
  await history.getByRole('row').filter({ hasText: 'incident.runner_outage' }).getByRole('link').first().click();
  await expect(page).toHaveURL(/\/receipts\/outage-pause-grants/);
  const commit = await page.getByTestId('receipt').getByRole('link').first().getAttribute('href');
  await page.goto(commit!);
  await expect(page.getByTestId('time-travel-banner')).toBeVisible();
  await expect(page.getByTestId('grants-paused-banner')).toBeVisible();
  await shot(page, 'overview-at-pause');
});
