import { expect, test } from '@playwright/test';
import { shot } from './helpers.ts';

/** The level and colour the gauge must show for an envelope (green < 80 % ≤ amber < watermark ≤ red). */
function expectedLevel(e: { bytes: number; ledger_bytes: number }): [string, string] {
  if (e.bytes >= e.ledger_bytes) return ['at_watermark', 'red'];
  return e.bytes >= 0.8 * e.ledger_bytes ? ['near_watermark', 'amber'] : ['ok', 'green'];
}

test('overview headroom gauge: the envelope of /api/tip, coloured by level, linked to what compact would retain', async ({ page, request }) => {
  const tip = await (await request.get('/api/tip')).json();
  const e = tip.envelope as { bytes: number; ledger_bytes: number; recovery_bytes: number; reserve: number; admission_remaining: number };
  expect(e.bytes).toBeGreaterThan(0);
  expect(e.admission_remaining).toBe(Math.max(0, e.ledger_bytes - e.bytes));

  await page.goto('/');
  const gauge = page.getByTestId('headroom');
  await expect(gauge).toBeVisible();
  const [level, colour] = expectedLevel(e);
  await expect(gauge).toHaveAttribute('data-level', level);
  await expect(gauge).toHaveAttribute('data-colour', colour);
  await expect(page.getByTestId('tip')).toContainText(String(tip.tip).slice(0, 8));
  await expect(page.getByTestId('headroom-bytes')).toHaveAttribute('data-value', String(e.bytes));
  await expect(page.getByTestId('headroom-watermark')).toHaveAttribute('data-value', String(e.ledger_bytes));
  await expect(page.getByTestId('headroom-admission')).toHaveAttribute('data-value', String(e.admission_remaining));
  await expect(page.getByTestId('headroom-reserve')).toHaveAttribute('data-value', String(e.recovery_bytes));
  await expect(page.getByTestId('headroom-owed')).toHaveAttribute('data-value', String(e.reserve));
  const width = await page.getByTestId('headroom-bar').evaluate((el) => (el as HTMLElement).style.width);
  expect(Number.parseFloat(width)).toBeCloseTo(Math.min(100, (e.bytes / e.ledger_bytes) * 100), 0);
  await shot(page, 'headroom');

  await page.getByTestId('headroom-compact-link').click();
  await expect(page).toHaveURL(/\/compact$/);
  const preview = page.getByTestId('compact-preview');
  await expect(preview).toHaveAttribute('data-already', 'false');
  await expect(page.getByTestId('compact-before')).toHaveAttribute('data-value', String(e.bytes));
  const after = Number(await page.getByTestId('compact-after').getAttribute('data-value'));
  expect(after).toBeGreaterThan(0);
  expect(after).toBeLessThan(e.bytes);
  await expect(page.getByTestId('compact-admission-after')).toHaveAttribute('data-value', String(e.ledger_bytes - after));
  await expect(page.getByTestId('compact-owed')).toHaveAttribute('data-value', String(e.reserve));
  await expect(page.getByTestId('compact-retained')).toContainText('Work');
  await shot(page, 'compact-preview');
});
