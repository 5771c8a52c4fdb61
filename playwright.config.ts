/**
 * Browser tests of the console (issue 5 "Acceptance"): real headless Chromium
 * (the system package, never a downloaded browser) against `fairway console`
 * started on the embedded demo queue at a free port.
 *
 *   npm run test:e2e   (checks the browser first: scripts/ensure-chromium.mjs;
 *                       builds the console first if its build is stale)
 */
import { defineConfig } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromiumExecutable } from './scripts/ensure-chromium.mjs';

// Chosen once in the runner process; workers inherit the environment.
if (process.env.FAIRWAY_E2E_PORT === undefined) {
  const probe = 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close();});';
  process.env.FAIRWAY_E2E_PORT = execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).trim();
}
// Login tokens are single-use (issue 18 §6): one per role (helpers.ts caches each session), one for the
// single-use test and one observer token for the role test. The role is configuration (issue 14 §5): the
// console starts with --admin, so its start-up tokens sign in as administrator; observer tokens never do.
process.env.FAIRWAY_E2E_TOKEN ??= Array.from({ length: 4 }, () => randomBytes(18).toString('base64url')).join(',');
const e2eTokens = process.env.FAIRWAY_E2E_TOKEN.split(',');
const artifacts = join(process.cwd(), 'e2e', 'artifacts');
mkdirSync(artifacts, { recursive: true });
process.env.FAIRWAY_E2E_STATE ??= join(artifacts, 'console-state.json');

const port = Number(process.env.FAIRWAY_E2E_PORT);
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'e2e/artifacts/test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['html', { outputFolder: 'e2e/artifacts/report', open: 'never' }]],
  use: {
    baseURL,
    viewport: { width: 1440, height: 960 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      // FAIRWAY_CHROMIUM / PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH / CHROMIUM_PATH, else /usr/bin/chromium:
      // the browser `node scripts/ensure-chromium.mjs` checked (it runs first in `npm test`).
      executablePath: chromiumExecutable(),
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: {
    command: `node bin/fairway.js console --demo --admin --port ${port}`,
    url: `${baseURL}/api/tip`,
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      FAIRWAY_CONSOLE_TOKEN: [e2eTokens[0], e2eTokens[2]].join(','),
      FAIRWAY_CONSOLE_OBSERVER_TOKEN: [e2eTokens[1], e2eTokens[3]].join(','),
      FAIRWAY_CONSOLE_TOKEN_TTL_MS: String(6 * 60 * 60 * 1000),
      FAIRWAY_DEMO_PROBE: '1',
      FAIRWAY_CONSOLE_STATE_FILE: process.env.FAIRWAY_E2E_STATE,
      NEXT_TELEMETRY_DISABLED: '1',
    },
  },
});
