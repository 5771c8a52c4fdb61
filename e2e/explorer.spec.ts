import { expect, test } from '@playwright/test';
import { shot } from './helpers.ts';

test('2. the explorer filter by fairness key narrows results and the URL round-trips', async ({ page }) => {
  await page.goto('/work');
  const all = await page.getByTestId('explorer-total').innerText();
  const allCount = Number(/^(\d+) of/.exec(all)![1]);
  await shot(page, 'explorer');

  await page.getByTestId('explorer-filters').locator('select[name="key"]').selectOption('security');
  await page.getByTestId('apply-filters').click();
  await expect(page).toHaveURL(/[?&]key=security(&|$)/);
  const filtered = Number(/^(\d+) of/.exec(await page.getByTestId('explorer-total').innerText())![1]);
  expect(filtered).toBeGreaterThan(0);
  expect(filtered).toBeLessThan(allCount);
  const keys = await page.getByTestId('work-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
  expect(keys.length).toBe(filtered);
  expect(new Set(keys)).toEqual(new Set(['security']));
  const rows = await page.getByTestId('work-table').innerText();
  await shot(page, 'explorer-security');

  // The URL is the state: loading it afresh gives the same view and the same filter controls.
  const url = page.url();
  const fresh = await page.context().newPage();
  await fresh.goto(url);
  expect(await fresh.getByTestId('work-table').innerText()).toBe(rows);
  await expect(fresh.getByTestId('explorer-filters').locator('select[name="key"]')).toHaveValue('security');
  expect(fresh.url()).toBe(url);
  await fresh.close();

  // Combined filters serialize in a canonical order.
  await page.getByTestId('explorer-filters').locator('select[name="readiness"]').selectOption('ready');
  await page.getByTestId('apply-filters').click();
  await expect(page).toHaveURL(/\/work\?readiness=ready&key=security$/);
});
