import { expect, test, type Page } from '@playwright/test';
import { failOnDialogs, mermaidRendered, PROBE, shot } from './helpers.ts';

async function inert(page: Page): Promise<void> {
  // No element was created from the probe anywhere in the document (HTML or SVG).
  expect(await page.locator('img[src="x"]').count()).toBe(0);
  expect(await page.evaluate(() => document.querySelectorAll('[onerror]').length)).toBe(0);
}

test('9. a Work whose payload and node key carry an XSS probe renders inert on every page', async ({ page }) => {
  const dialogs = failOnDialogs(page);

  await page.goto(`/work?q=${encodeURIComponent('onerror')}`);
  await expect(page.getByTestId('work-table')).toContainText(PROBE);
  await inert(page);
  await shot(page, 'xss-explorer');

  await page.getByRole('link', { name: PROBE }).click();
  await expect(page.getByTestId('work-title')).toHaveText(PROBE);
  await page.getByTestId('payload').locator('summary').click();
  await expect(page.getByTestId('payload')).toContainText('"note": "<img src=x onerror=alert(1)>"');
  await expect(page.getByTestId('payload')).toContainText('<script>alert(2)</script>');
  await inert(page);
  await shot(page, 'xss-work');

  await page.goto('/graphs/xss-probe');
  await mermaidRendered(page, 'graph-diagram');
  await expect(page.getByTestId('graph-diagram').locator('svg')).toContainText('<img src=x onerror=alert(1)>');
  await expect(page.getByTestId('graph-diagram').locator('svg image, svg img, svg foreignObject img')).toHaveCount(0);
  await inert(page);
  await shot(page, 'xss-graph');

  for (const path of ['/', '/receipts/xss-probe', '/commits', '/graphs', '/fairness']) {
    await page.goto(path);
    await inert(page);
  }
  await expect(page.locator('body')).not.toContainText('alert(1)>alert');
  expect(dialogs).toEqual([]);
});
