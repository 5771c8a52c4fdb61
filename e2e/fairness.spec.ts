import { expect, test } from '@playwright/test';
import { shot } from './helpers.ts';

test('5. fairness shows equal target shares and the what-if panel changes the prediction', async ({ page }) => {
  await page.goto('/fairness');
  const platform = page.locator('[data-testid="fair-key-row"][data-priority="3"][data-key="platform"]');
  const security = page.locator('[data-testid="fair-key-row"][data-priority="3"][data-key="security"]');
  await expect(security.getByTestId('target-share')).toHaveText('50.0%');
  await expect(platform.getByTestId('target-share')).toHaveText('50.0%');
  await expect(page.getByTestId('share-chart').first()).toBeVisible();

  await page.getByTestId('whatif-run').click();
  await expect(page.getByTestId('whatif-result')).toBeVisible();
  await expect(page.getByTestId('whatif-changed')).toHaveText('0');
  const before = await page.getByTestId('whatif-proposal').innerText();

  await page.getByTestId('whatif-weight-security').fill('4');
  await page.getByTestId('whatif-run').click();
  await expect(page.getByTestId('whatif-changed')).not.toHaveText('0');
  expect(await page.getByTestId('whatif-proposal').innerText()).not.toBe(before);
  await shot(page, 'fairness');
});
