import { expect, test } from '@playwright/test';
import { shot } from './helpers.ts';

test('every page renders; screenshots of each', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));

  await page.goto('/graphs');
  await expect(page.getByTestId('graphs')).toContainText('sdk-migration');
  await shot(page, 'graphs');

  await page.goto('/commits?page=2');
  await expect(page.getByTestId('commits')).toContainText('plan-sdk-migration');
  await page.goto('/commits');
  await expect(page.getByTestId('pager')).toBeVisible();
  await page.getByTestId('commits').getByRole('row').filter({ hasText: 'outage-pause-grants' }).getByRole('link', { name: 'from' }).click();
  await expect(page.getByTestId('comparison')).toContainText('controls');
  await shot(page, 'commits-compare');

  await page.goto('/receipts/outage-resume-grants');
  await expect(page.getByTestId('receipt-operations')).toContainText('grants_paused = false');
  await shot(page, 'receipt-control');

  await page.goto('/receipts/replace-after-delivery-failure');
  await expect(page.getByTestId('receipt-operations')).toContainText('replacement');
  await page.getByTestId('receipt-operations').getByRole('link').first().click();
  await expect(page.getByTestId('work-title')).toContainText('-remediation');
  await page.getByRole('link', { name: /migrate-billing-module-002$/ }).first().click();
  await expect(page.getByTestId('delivery-failure')).toContainText('delivery_unverifiable');
  await shot(page, 'work-delivery-failed');

  await page.goto('/admin');
  await expect(page.getByTestId('admin-locked')).toBeVisible();
  await page.goto('/login');
  await shot(page, 'login');
  expect(errors).toEqual([]);
});
