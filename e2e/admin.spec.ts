import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, consoleState, login, shot } from './helpers.ts';

function fairway(args: string[]): string {
  try {
    return execFileSync(process.execPath, ['bin/fairway.js', ...args], { encoding: 'utf8' });
  } catch (e) {
    const failed = e as { stdout?: string; stderr?: string };
    throw new Error(`fairway ${args.join(' ')} failed: ${failed.stdout ?? ''} ${failed.stderr ?? ''}`.slice(0, 2000), { cause: e });
  }
}

test('7. an administrator pauses grants; the overview and `fairway replay --json` show it', async ({ page }) => {
  await login(page, 'administrator');
  await page.goto('/admin');
  await shot(page, 'admin');
  await page.getByTestId('pause-grants_paused').click();
  await expect(page.getByTestId('action-targets')).toContainText('grants_paused');
  await page.getByTestId('action-reason').fill('e2e.incident_drill');
  await page.getByTestId('action-confirm').click();

  // Lands on its receipt.
  await expect(page).toHaveURL(/\/receipts\/console-control-/);
  const requestId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
  await expect(page.getByTestId('receipt-operations')).toContainText('grants_paused = true (e2e.incident_drill)');
  await shot(page, 'receipt-pause-grants');

  await page.goto('/');
  await expect(page.getByTestId('grants-state')).toHaveText('grants_paused');
  await expect(page.getByTestId('grants-paused-banner')).toBeVisible();
  await expect(page.getByTestId('pause-history')).toContainText('still paused');
  await shot(page, 'overview-grants-paused');

  try {
    await checkLedger(requestId);
  } finally {
    // Resume so other tests see a running queue, whatever happened above.
    const res = await page.request.post('/api/admin/control', { data: { control: 'grants_paused', value: false, reason: 'e2e.drill_over' } });
    expect(res.status()).toBe(200);
    const body = await res.json();
    expect(body.ok).toBe(true);
    expect(body.receipt.operations[0].kind).toBe('Control');
  }
});

/** `fairway replay --json` on the same repository (and offline on its ledger file) shows the Control. */
async function checkLedger(requestId: string): Promise<void> {
  const repo = consoleState().demo_repository!;
  const summary = JSON.parse(fairway(['--dir', repo, 'replay', '--json']));
  expect(summary.ok).toBe(true);
  expect(summary.controls.grants_paused).toBe(true);
  const ledger = execFileSync('git', ['-C', repo, 'show', 'work-queue:work-queue.jsonl'], { encoding: 'utf8' });
  const file = join(ARTIFACTS, 'demo-ledger.jsonl');
  writeFileSync(file, ledger);
  const offline = JSON.parse(fairway(['replay', '--ledger', file, '--json']));
  expect(offline.controls.grants_paused).toBe(true);
  expect(offline.tip).toBe(summary.tip);
  const control = ledger.trim().split('\n').map((l) => JSON.parse(l)).find((c) => c.request.id === requestId);
  expect(control.request.kind).toBe('control');
  expect(control.actor.role).toBe('administrator');
  expect(control.operations).toEqual([{ kind: 'Control', control: 'grants_paused', value: true, reason: 'e2e.incident_drill' }]);
}

test('an administrator action with a stale target is refused, not applied elsewhere', async ({ page }) => {
  await login(page, 'administrator');
  const res = await page.request.post('/api/admin/reprioritize', { data: { work_ids: ['w_unknown'], priority: 1, reason: 'e2e.stale' } });
  expect(res.status()).toBe(422);
  expect((await res.json()).error.code).toBe('unknown_work');
  const policy = await page.request.post('/api/admin/policy', { data: { epoch: 'e2e-epoch', policy: { mode: 'weighted-priority' } } });
  expect(policy.status()).toBe(400);
});
