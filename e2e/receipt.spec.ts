import { expect, test } from '@playwright/test';
import { mermaidRendered, shot } from './helpers.ts';

test('6. a receipt permalink reloads identically', async ({ page }) => {
  await page.goto('/receipts/dispatch-0935-sdk-shared');
  await expect(page.getByTestId('receipt-claims')).toContainText('granted 3');
  await expect(page.getByTestId('explanation')).toHaveCount(3); // one planNext explanation per Claim
  await mermaidRendered(page, 'lifecycle-diagram');
  const read = async () => ({
    receipt: await page.getByTestId('receipt').innerText(),
    explanations: await page.getByTestId('explanation').allInnerTexts(),
    operations: await page.getByTestId('receipt-operations').innerText(),
    sequence: await page.getByTestId('lifecycle-diagram').locator('svg').evaluate((svg) => svg.textContent),
  });
  const first = await read();
  await shot(page, 'receipt-shared-worker');
  await page.reload();
  await mermaidRendered(page, 'lifecycle-diagram');
  const second = await read();
  expect(second.receipt).toBe(first.receipt);
  expect(second.explanations).toEqual(first.explanations);
  expect(second.operations).toBe(first.operations);
  expect(second.sequence).toBe(first.sequence);
});
