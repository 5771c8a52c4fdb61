/** Shared helpers of the console browser tests. */
import { expect, type Page } from '@playwright/test';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ARTIFACTS = join(process.cwd(), 'e2e', 'artifacts');
export const PROBE = '<img src=x onerror=alert(1)>';

/**
 * The run's single-use login tokens (playwright.config.ts): [administrator, observer, spare administrator,
 * spare observer]. The console decides each one's role (started with --admin; observer tokens are configured).
 */
export function token(use: 'administrator' | 'observer' | 'spare' | 'spare-observer' = 'administrator'): string {
  const tokens = process.env.FAIRWAY_E2E_TOKEN!.split(',');
  return tokens[{ administrator: 0, observer: 1, spare: 2, 'spare-observer': 3 }[use]] ?? tokens[0]!;
}

/** What the console wrote at start-up (URL and demo repository; never the token). */
export function consoleState(): { url: string; demo_repository: string | null } {
  return JSON.parse(readFileSync(process.env.FAIRWAY_E2E_STATE!, 'utf8')) as { url: string; demo_repository: string | null };
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Any JavaScript dialog (alert) is a failed XSS probe. */
export function failOnDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on('dialog', (d) => {
    seen.push(d.message());
    void d.dismiss();
  });
  return seen;
}

/**
 * Signs `page` in as `role`. A login token works once, so the first sign-in of
 * each role uses that role's token and saves the session cookies (per run);
 * later calls reuse the session.
 */
export async function login(page: Page, role: 'administrator' | 'observer' = 'administrator'): Promise<void> {
  const run = createHash('sha256').update(process.env.FAIRWAY_E2E_TOKEN!).digest('hex').slice(0, 12);
  const saved = join(ARTIFACTS, `session-${role}-${run}.json`);
  if (existsSync(saved)) {
    await page.context().addCookies(JSON.parse(readFileSync(saved, 'utf8')) as Parameters<ReturnType<Page['context']>['addCookies']>[0]);
    await page.goto('/admin');
  } else {
    await page.goto(`/login?token=${encodeURIComponent(token(role))}&callbackUrl=/admin`);
    await page.getByTestId('login-submit').click();
  }
  await expect(page.getByTestId('viewer-role')).toHaveText(role);
  if (!existsSync(saved)) writeFileSync(saved, JSON.stringify(await page.context().cookies()));
}

/**
 * The diagram is drawn once and stays drawn: one draw (`data-draws`), and the
 * same SVG element still there and the state still `rendered` a moment later.
 * A diagram drawn again on every React render flips between `rendering` and
 * `rendered` and replaces its SVG; that loop once left the receipt page stuck
 * in `rendering`.
 */
export async function mermaidRendered(page: Page, testId: string): Promise<void> {
  const host = page.getByTestId(testId);
  await expect(host).toHaveAttribute('data-state', 'rendered', { timeout: 30_000 });
  await expect(host.locator('svg').first()).toBeVisible();
  await host.locator('svg').first().evaluate((svg) => svg.setAttribute('data-e2e-drawn', 'once'));
  await page.waitForTimeout(750);
  await expect(host).toHaveAttribute('data-state', 'rendered', { timeout: 1 });
  await expect(host).toHaveAttribute('data-draws', '1', { timeout: 1 });
  await expect(host.locator('svg[data-e2e-drawn="once"]')).toHaveCount(1, { timeout: 1 });
}
