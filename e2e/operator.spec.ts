/**
 * Issue 14 "Done when" in a real browser: the line and a Work's position, the
 * what-if first pick equal to `fairway explain`, a two-blocker Work showing
 * both, every dialog's preview and precondition check, the configured login
 * role, the security headers (and a page that still works under its CSP),
 * 404s, `?at=` kept across navigation, explorer sorting. Screenshots go to
 * e2e/artifacts/.
 */
import { expect, test, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { consoleState, login, mermaidRendered, shot, token } from './helpers.ts';

function explainNext(): { work: { work_id: string; priority: number; fairness_key: string } } {
  const out = execFileSync(process.execPath, ['bin/fairway.js', '--dir', consoleState().demo_repository!, 'explain', '--pool', 'default', '--json'], { encoding: 'utf8' });
  return JSON.parse(out) as { work: { work_id: string; priority: number; fairness_key: string } };
}

/** Records CSP violations the page reports (the init script runs outside the page's CSP). */
async function watchCsp(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    (window as unknown as { __csp: string[] }).__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
}

/** `3h 12m`, `45s`, `2d 4h`, `—` → seconds (null for the dash). */
function seconds(text: string): number | null {
  if (text.trim() === '—') return null;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)([dhms])/g)) total += Number(n) * { d: 86400, h: 3600, m: 60, s: 1 }[unit as 'd' | 'h' | 'm' | 's'];
  return total;
}

test('the line: /next lists the predicted order, its first entry is explain\'s pick, and a Work page shows its position', async ({ page }) => {
  await page.goto('/next');
  const rows = page.getByTestId('line-row');
  await expect(rows.first()).toBeVisible();
  expect(await rows.count()).toBeGreaterThan(10);
  await expect(page.getByTestId('line-summary')).toContainText('ready Work of this pool would be granted');
  const first = await rows.first().getAttribute('data-work-id');
  expect(first).toBe(explainNext().work.work_id);
  await shot(page, 'next-line');

  const fifth = rows.nth(4);
  const name = (await fifth.getByRole('link').first().textContent())!.trim();
  await fifth.getByRole('link').first().click();
  await expect(page.getByTestId('work-title')).toHaveText(name);
  await expect(page.getByTestId('work-line-position')).toContainText(/In line: 5th; \d+ grants? ahead in P\d; next after /);
  await shot(page, 'work-line-position');
});

test('what-if from the live clocks: the installed settings\' first grant is explain\'s next pick', async ({ page }) => {
  await page.goto('/fairness');
  await expect(page.getByTestId('whatif-baseline')).toHaveValue('live');
  await page.getByTestId('whatif-run').click();
  await expect(page.getByTestId('whatif-baseline-label')).toContainText('live fairness clocks');
  const next = explainNext().work;
  await expect(page.getByTestId('whatif-current').locator('li').first()).toHaveText(`1. P${next.priority} ${next.fairness_key === '' ? '(default)' : next.fairness_key}`);
  await shot(page, 'fairness-whatif-live');
});

test('a Work blocked by two things lists and draws both', async ({ page }) => {
  await page.goto('/work?q=review-proposals');
  await page.getByRole('link', { name: 'review-proposals' }).click();
  await expect(page.getByTestId('work-title')).toHaveText('review-proposals');
  const branches = page.getByTestId('blocking-branch');
  // count() does not wait: wait for the second branch, then count.
  await expect(branches.nth(1)).toBeVisible();
  expect(await branches.count()).toBeGreaterThanOrEqual(2);
  await expect(page.getByTestId('blocking-steps').first()).toContainText('PR gate');
  await expect(page.getByTestId('blocking-steps').first()).toContainText('propose-docs-changes');
  await mermaidRendered(page, 'blocking-diagram');
  const svg = page.getByTestId('blocking-diagram').locator('svg');
  await expect(svg).toContainText('acme/upstream-sdk');
  await expect(svg).toContainText('propose-docs-changes');
});

test('dialogs preview the exact operations and check preconditions before Confirm', async ({ page }) => {
  await login(page, 'administrator');
  // Reprioritise from a ready Work's own page: the current priority is a no-op, refused before Confirm.
  await page.goto('/next');
  await page.getByTestId('line-row').first().getByRole('link').first().click();
  await page.waitForURL(/\/work\/[^/?]+/);
  const workId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
  await page.getByTestId('work-action-reprioritize').click();
  await expect(page.getByTestId('action-precondition')).toHaveAttribute('data-code', 'no_change');
  await expect(page.getByTestId('action-confirm')).toBeDisabled();
  await shot(page, 'dialog-precondition-no-change');
  const current = Number(await page.getByTestId('action-priority').inputValue());
  await page.getByTestId('action-priority').selectOption(String(current === 1 ? 2 : 1));
  await expect(page.getByTestId('action-precondition')).toHaveAttribute('data-code', 'ok');
  await expect(page.getByTestId('action-preview')).toContainText('"kind": "WorkPriority"');
  await expect(page.getByTestId('action-preview')).toContainText(workId);
  await expect(page.getByTestId('action-preview')).toContainText(`"expected_priority": ${current}`);
  await expect(page.getByTestId('action-target').first()).toContainText('available');
  await expect(page.getByTestId('action-confirm')).toBeEnabled();
  await shot(page, 'dialog-preview-reprioritize');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel', exact: true }).click();

  // Cancel a running Work: the preview names its owning Claim.
  await page.goto('/work?state=claimed');
  await page.getByTestId('work-row').first().getByRole('link').first().click();
  await page.getByTestId('work-action-cancel').click();
  await expect(page.getByTestId('action-precondition')).toHaveAttribute('data-code', 'ok');
  await expect(page.getByTestId('action-target').first()).toContainText(/claimed · P\d · owned by Claim c_/);
  await expect(page.getByTestId('action-preview')).toContainText('"kind": "WorkCancellation"');
  await shot(page, 'dialog-preview-cancel-claimed');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel', exact: true }).click();

  // Pausing what is already paused / resuming what runs: admission is open, so "pause" previews one Control.
  await page.goto('/admin');
  await page.getByTestId('pause-admission_paused').click();
  await expect(page.getByTestId('action-preview')).toContainText('"control": "admission_paused"');
  await expect(page.getByTestId('action-target').first()).toContainText('admission_paused → true · now false');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel', exact: true }).click();

  // By id: an unknown id is named as such and nothing can be confirmed.
  await page.getByTestId('work-ids').fill('w_does_not_exist');
  await expect(page.getByTestId('work-id-targets')).toContainText('no such Work');
  await expect(page.getByRole('button', { name: /^Cancel 1 Work/ })).toBeDisabled();

  // Run it again: a delivery-failed Work offers a replacement (spec 7.15), previewed before anything is published.
  await page.goto('/work?q=migrate-billing-module-002');
  await page.getByRole('link', { name: /^migrate-billing-module-002$/ }).first().click();
  await expect(page.getByTestId('run-again-key')).toHaveValue(/^migrate-billing-module-002-rerun/);
  await page.getByTestId('run-again-open').click();
  await expect(page.getByTestId('action-precondition')).toHaveAttribute('data-code', 'ok');
  await expect(page.getByTestId('action-preview')).toContainText('"replacement_of"');
  await expect(page.getByTestId('action-preview')).toContainText('"disposition": "inspection"');
  await expect(page.getByTestId('action-target').first()).toContainText('delivery failed');
  await shot(page, 'dialog-preview-run-again');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel', exact: true }).click();
  // A node key already in the graph is refused before Confirm.
  await page.getByTestId('run-again-key').fill('migrate-billing-module-002');
  await page.getByTestId('run-again-open').click();
  await expect(page.getByTestId('action-precondition')).toHaveAttribute('data-code', /^(inconsistent_resubmission|duplicate_node_key)$/);
  await expect(page.getByTestId('action-confirm')).toBeDisabled();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel', exact: true }).click();

  // The preview API refuses a stale or unknown target with its code, publishing nothing.
  const res = await page.request.post('/api/admin/preview', { data: { action: 'cancel-work', body: { work_ids: ['w_nope'], reason: 'e2e.preview' } } });
  expect(res.status()).toBe(422);
  expect((await res.json()).error.code).toBe('unknown_work');
});

test('the login role is configuration: an observer link signs in read-only and the form offers no role', async ({ browser }) => {
  const page = await browser.newPage();
  await page.goto(`/login?token=${encodeURIComponent(token('spare-observer'))}&callbackUrl=/admin`);
  await expect(page.getByTestId('login-role')).toContainText('administrator'); // this console was started with --admin
  await expect(page.locator('input[type=radio]')).toHaveCount(0);
  await shot(page, 'login-role');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('viewer-role')).toHaveText('observer');
  expect((await page.request.post('/api/admin/control', { data: { control: 'grants_paused', value: true, reason: 'e2e.role' } })).status()).toBe(403);
  await page.close();
});

test('security headers on pages and API routes; pages still hydrate and draw Mermaid under the CSP', async ({ page }) => {
  const violations = await watchCsp(page);
  const res = (await page.goto('/graphs/sdk-migration'))!;
  const h = res.headers();
  const csp = h['content-security-policy']!;
  const script = csp.split('; ').find((d) => d.startsWith('script-src '))!;
  expect(script).toMatch(/'nonce-[A-Za-z0-9+/=]+'/);
  expect(script).toContain("'strict-dynamic'");
  expect(script).not.toContain("'unsafe-inline'");
  expect(script).not.toContain("'unsafe-eval'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(h['x-frame-options']).toBe('DENY');
  expect(h['x-content-type-options']).toBe('nosniff');
  expect(h['referrer-policy']).toBe('same-origin');
  await mermaidRendered(page, 'graph-diagram'); // client code ran: hydration and Mermaid under the CSP
  expect(await violations()).toEqual([]);
  const again = (await page.goto('/graphs/sdk-migration'))!;
  expect(again.headers()['content-security-policy']).not.toBe(csp); // a fresh nonce per request

  const api = await page.request.get('/api/tip');
  expect(api.headers()['content-security-policy']).toContain("default-src 'none'");
  expect(api.headers()['x-frame-options']).toBe('DENY');
  expect(api.headers()['x-content-type-options']).toBe('nosniff');
});

test('unknown Work, graphs, receipts, commits and pages answer 404 with a page naming what is missing', async ({ page }) => {
  const cases: Array<[string, string]> = [
    ['/work/w_does_not_exist', 'unknown_work'],
    ['/graphs/no-such-graph', 'unknown_graph'],
    ['/receipts/never-committed', 'unknown_request'],
    ['/work?at=q_0000000000000000000000000000000000000000000000000000000000000000', 'unknown_commit'],
    ['/no/such/page', 'unknown_page'],
  ];
  for (const [path, code] of cases) {
    const res = (await page.goto(path))!;
    expect(res.status(), path).toBe(404);
    await expect(page.getByTestId('not-found')).toHaveAttribute('data-code', code);
    if (code === 'unknown_commit') await expect(page.getByTestId('not-found')).toContainText('Unknown commit');
  }
  await page.goto('/work/w_does_not_exist');
  await shot(page, 'not-found-work');
});

test('time travel: ?at= is kept across the top navigation, with how far back and a way back to live', async ({ page }) => {
  await page.goto('/commits');
  const href = await page.getByTestId('commits').locator('a[href^="/?at="]').nth(3).getAttribute('href');
  const at = new URL(href!, 'http://x').searchParams.get('at')!;
  await page.goto(`/?at=${encodeURIComponent(at)}`);
  await expect(page.getByTestId('time-travel-ago')).toContainText(/\d+ commits? ago/);
  for (const nav of ['nav-work', 'nav-next', 'nav-fairness', 'nav-graphs']) {
    await page.getByTestId(nav).click();
    await expect(page).toHaveURL(new RegExp(`[?&]at=${at}`));
    await expect(page.getByTestId('time-travel-banner')).toBeVisible();
  }
  await shot(page, 'time-travel-navigation');
  await page.getByTestId('back-to-live').click();
  await expect(page).not.toHaveURL(/[?&]at=/);
  await expect(page.getByTestId('time-travel-banner')).toHaveCount(0);
});

test('the explorer sorts by any column and shows age, waiting and running', async ({ page }) => {
  await page.goto('/work?state=available');
  await page.getByTestId('sort-waiting').click();
  await expect(page).toHaveURL(/sort=waiting&dir=desc/);
  await expect(page).toHaveURL(/state=available/);
  const waits = (await page.getByTestId('work-waiting').allTextContents()).map(seconds).filter((s): s is number => s !== null);
  expect(waits.length).toBeGreaterThan(1);
  expect([...waits].sort((a, b) => b - a)).toEqual(waits);
  await shot(page, 'explorer-sorted-waiting');
  await page.getByTestId('sort-waiting').click();
  await expect(page).not.toHaveURL(/dir=desc/);
  const ascending = (await page.getByTestId('work-waiting').allTextContents()).map(seconds).filter((s): s is number => s !== null);
  expect([...ascending].sort((a, b) => a - b)).toEqual(ascending);

  await page.goto('/work?state=claimed');
  const running = (await page.getByTestId('work-running').allTextContents()).map(seconds);
  expect(running.length).toBeGreaterThan(0);
  expect(running.every((s) => s !== null)).toBe(true);
  await page.getByTestId('sort-node').click();
  await expect(page).toHaveURL(/sort=node/);
  const names = await page.getByTestId('work-row').locator('td:first-child').allTextContents();
  expect([...names].sort()).toEqual(names);
});
