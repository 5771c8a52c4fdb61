/**
 * One GitHub server per CLI run: the queue store (`apiUrlFor`, lib/github/host.ts `cliApiRoot`)
 * and the API clients built from `githubEnv` (launch, observe, dispatch; the Issues projector
 * reads the same lib/github/host.ts `envApiRoot`)
 * use the same API root for every combination of FAIRWAY_GITHUB_API_URL, GITHUB_API_URL,
 * GITHUB_SERVER_URL, GH_HOST, the host of `-R` (or `--dir`, no GitHub store) and GITHUB_ACTIONS.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dispatchPostOptions, launchApi, observeApi } from '../lib/github/context.ts';
import { DOTCOM_API_ROOT } from '../lib/github/host.ts';
import { apiUrlFor, githubEnv, normalizeGlobals, type RawGlobals } from './globals.ts';
import type { Io } from './output.ts';

const FAIRWAY = [undefined, '', 'http://127.0.0.1:9/proxy'];
const API = [undefined, '', 'https://ghe.runner.example/api/v3'];
const SERVER = [undefined, 'https://ghe.runner.example'];
const GH_HOST = [undefined, 'ghe.gh-host.example', 'github.com'];
const SOURCE: RawGlobals[] = [{ repo: 'o/r' }, { repo: 'github.com/o/r' }, { repo: 'ghe.repo.example/o/r' }, { dir: '.' }];
const ACTIONS = [undefined, 'true'];

const io: Io = { out: () => undefined, err: () => undefined };
const cwd = mkdtempSync(join(tmpdir(), 'fairway-globals-'));

describe('the CLI\'s store and API clients use one API root', () => {
  it('for every input combination', async () => {
    let checked = 0;
    for (const f of FAIRWAY) for (const a of API) for (const s of SERVER) for (const h of GH_HOST) for (const source of SOURCE) for (const x of ACTIONS) {
      const env: Record<string, string> = { GH_TOKEN: 't', GH_ENTERPRISE_TOKEN: 't' };
      for (const [name, value] of [['FAIRWAY_GITHUB_API_URL', f], ['GITHUB_API_URL', a], ['GITHUB_SERVER_URL', s], ['GH_HOST', h], ['GITHUB_ACTIONS', x]] as const) {
        if (value !== undefined) env[name] = value;
      }
      const g = normalizeGlobals(source, io, env, cwd);
      const root = apiUrlFor(g, env) ?? DOTCOM_API_ROOT;
      const clients = await githubEnv(g, env);
      const label = JSON.stringify({ env, source });
      expect(launchApi(clients).options.baseUrl ?? DOTCOM_API_ROOT, label).toBe(root);
      expect(observeApi(clients).options.baseUrl ?? DOTCOM_API_ROOT, label).toBe(root);
      expect(dispatchPostOptions(clients).baseUrl ?? DOTCOM_API_ROOT, label).toBe(root);
      checked++;
    }
    expect(checked).toBe(FAIRWAY.length * API.length * SERVER.length * GH_HOST.length * SOURCE.length * ACTIONS.length);
  });

  it('a GITHUB_API_URL outside Actions moves neither (like gh); inside Actions with no host named it moves both', async () => {
    const stray = { GH_TOKEN: 't', GITHUB_API_URL: 'https://ghe.runner.example/api/v3' };
    const outside = normalizeGlobals({ repo: 'o/r' }, io, stray, cwd);
    expect(apiUrlFor(outside, stray)).toBeUndefined();
    expect(launchApi(await githubEnv(outside, stray)).options.baseUrl).toBe(DOTCOM_API_ROOT);
    const runner = { ...stray, GITHUB_ACTIONS: 'true' };
    const inside = normalizeGlobals({ repo: 'o/r' }, io, runner, cwd);
    expect(apiUrlFor(inside, runner)).toBe('https://ghe.runner.example/api/v3');
    expect(launchApi(await githubEnv(inside, runner)).options.baseUrl).toBe('https://ghe.runner.example/api/v3');
  });
});
