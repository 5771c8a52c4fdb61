import { expect, test, type Page } from '@playwright/test';
import { shot } from './helpers.ts';

/**
 * The explorer's rows, cell by cell, without the cells measured from the wall clock (age,
 * waiting, running: two loads a moment apart may straddle a minute), which the page computes
 * from "now", not from the ledger.
 */
async function rowsOf(page: Page): Promise<string[][]> {
  const clock = ['work-age', 'work-waiting', 'work-running'];
  const rows = await page.getByTestId('work-row').evaluateAll((trs, skip) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].filter((td) => !skip.includes(td.dataset.testid ?? '')).map((td) => td.innerText.trim())), clock);
  // Each row had the three clock cells, and keeps the others (node, graph, class, key, state, readiness, why, attempts).
  const widths = await page.getByTestId('work-row').evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td').length));
  expect(rows.map((r) => r.length)).toEqual(widths.map((w) => w - clock.length));
  return rows;
}

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
  const rows = await rowsOf(page);
  expect(rows.length).toBe(filtered);
  await shot(page, 'explorer-security');

  // The URL is the state: loading it afresh gives the same view and the same filter controls.
  const url = page.url();
  const fresh = await page.context().newPage();
  await fresh.goto(url);
  expect(await rowsOf(fresh)).toEqual(rows);
  await expect(fresh.getByTestId('explorer-filters').locator('select[name="key"]')).toHaveValue('security');
  expect(fresh.url()).toBe(url);
  await fresh.close();

  // Combined filters serialize in a canonical order.
  await page.getByTestId('explorer-filters').locator('select[name="readiness"]').selectOption('ready');
  await page.getByTestId('apply-filters').click();
  await expect(page).toHaveURL(/\/work\?readiness=ready&key=security$/);
});
