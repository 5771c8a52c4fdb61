/** Shared helpers of the console browser tests. */
import { expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ARTIFACTS = join(process.cwd(), 'e2e', 'artifacts');
export const PROBE = '<img src=x onerror=alert(1)>';

export function token(): string {
  return process.env.FAIRWAY_E2E_TOKEN!;
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

export async function login(page: Page, role: 'administrator' | 'observer' = 'administrator'): Promise<void> {
  await page.goto(`/login?token=${encodeURIComponent(token())}&callbackUrl=/admin`);
  if (role === 'observer') await page.getByTestId('login-observer').check();
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('viewer-role')).toHaveText(role);
}

export async function mermaidRendered(page: Page, testId: string): Promise<void> {
  await expect(page.getByTestId(testId)).toHaveAttribute('data-state', 'rendered', { timeout: 30_000 });
  await expect(page.getByTestId(testId).locator('svg').first()).toBeVisible();
}
