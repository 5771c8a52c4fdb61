import { expect, test } from '@playwright/test';
import { mermaidRendered, shot } from './helpers.ts';

test('3. the Work gated by the unmerged PR shows external_wait and its blocking path as SVG', async ({ page }) => {
  await page.goto('/work?q=review-proposals');
  await page.getByRole('link', { name: 'review-proposals' }).click();
  await expect(page.getByTestId('work-title')).toHaveText('review-proposals');
  await expect(page.getByTestId('work-reason')).toHaveText('external_wait');
  await mermaidRendered(page, 'blocking-diagram');
  const svg = page.getByTestId('blocking-diagram').locator('svg');
  await expect(svg).toContainText('acme/upstream-sdk');
  await expect(page.getByTestId('blocking-steps')).toContainText('PR gate');
  await shot(page, 'work-review-proposals');

  // The retry-delayed documentation task explains itself too.
  await page.goto('/work?q=propose-docs-changes');
  await page.getByRole('link', { name: 'propose-docs-changes' }).click();
  await expect(page.getByTestId('work-reason')).toHaveText('retry_delayed');
  await shot(page, 'work-retry-delayed');
});
