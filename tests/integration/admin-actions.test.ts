/**
 * One administrator action table (engine/requests/admin-actions.ts): one vocabulary named by
 * the CLI's commands, the console's `/api/admin/<action>` routes and the TUI's review dialog,
 * and each surface publishes exactly the request the table builds — same kind, same
 * operations — on the real CLI entry point, the TUI's store backend and the console runtime,
 * all on one real Git repository.
 */
import { readdirSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { storeBackend } from '../../cli/tui/backend.ts';
import { ADMIN_ACTION } from '../../cli/tui/dialog.ts';
import { registerAdmin } from '../../cli/commands/admin.ts';
import type { CliContext } from '../../cli/context.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import type { ReplayState } from '../../engine/state/state.ts';
import { ADMIN_ACTIONS, adminRequest, type AdminAction, type AdminActionBody } from '../../engine/requests/admin-actions.ts';
import { runAdminAction } from '../../lib/console/admin/actions.ts';
import { ADMIN_BODIES } from '../../lib/console/admin/schemas.ts';
import type { ConsoleConfig } from '../../lib/console/config.ts';
import { ConsoleRuntime } from '../../lib/console/runtime.ts';
import { seedDemoDay } from '../../lib/demo/day.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { runFairway } from '../support/cli.ts';
import { fixtureRepo } from '../support/fixture-repo.ts';

const NOW = Date.UTC(2026, 4, 12, 15, 0, 0);
const PRINCIPAL = '1001';

describe('one administrator action vocabulary', () => {
  it('the console routes and body schemas, the CLI admin commands and the TUI dialogs name the table\'s actions', () => {
    const actions = Object.keys(ADMIN_ACTIONS).sort();
    const routes = readdirSync(new URL('../../app/api/admin/', import.meta.url)).filter((name) => name !== 'preview');
    expect(routes.sort()).toEqual(actions);
    expect(Object.keys(ADMIN_BODIES).sort()).toEqual(actions);
    const program = new Command('fairway');
    const ctx: CliContext = { io: { out() {}, err() {} }, globals: () => ({}), action: (fn) => async (...args) => fn({}, ...args) };
    registerAdmin(program, ctx);
    // Running a Work again is the console's (it pre-fills a submission from the Work's page).
    expect(program.commands.map((c) => c.name()).sort()).toEqual(actions.filter((a) => a !== 'run-again'));
    for (const action of Object.values(ADMIN_ACTION)) expect(actions).toContain(action);
  });
});

/** The last commit's request kind and operations, and the state before it. */
async function lastCommit(store: LocalGitStore): Promise<{ before: ReplayState; kind: string; at: number; operations: unknown[] }> {
  const text = new TextDecoder().decode((await store.read()).bytes!);
  const lines = text.split('\n').filter((l) => l !== '');
  const last = JSON.parse(lines.at(-1)!) as { at: number; request: { kind: string }; operations: unknown[] };
  const before = replayLedger(new TextEncoder().encode(lines.slice(0, -1).map((l) => `${l}\n`).join(''))).state;
  return { before, kind: last.request.kind, at: last.at, operations: last.operations };
}

async function expectTableRequest<A extends AdminAction>(store: LocalGitStore, action: A, body: (before: ReplayState) => AdminActionBody<A>): Promise<void> {
  const { before, kind, at, operations } = await lastCommit(store);
  const built = adminRequest(action, body(before), before, at);
  expect({ kind, operations }).toEqual({ kind: ADMIN_ACTIONS[action].kind, operations: JSON.parse(JSON.stringify(built.operations)) });
}

describe('every surface publishes the table\'s request', () => {
  it('CLI reprioritize, TUI cancel-claim and console cancel-work commit exactly what adminRequest builds', async () => {
    const repo = fixtureRepo('fairway-admin-table-');
    const store = new LocalGitStore({ repo });
    await seedDemoDay(new Publisher(store), { now: NOW });
    const seeded = replayLedger((await store.read()).bytes!).state;
    const available = [...seeded.works.values()].filter((w) => w.state === 'available');
    const claimed = [...seeded.works.values()].find((w) => w.state === 'claimed')!;

    const target = available.find((w) => w.effectivePriority !== 1)!;
    let out = '';
    const code = await runFairway(['--json', '--repo', repo, '--principal', PRINCIPAL, 'reprioritize', '--work-id', target.workId, '--priority', '1', '--reason', 'operator_reprioritized'], { out: (s) => (out += s), err: () => undefined });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ status: 'committed', kind: ADMIN_ACTIONS.reprioritize.kind });
    await expectTableRequest(store, 'reprioritize', () => ({ work_ids: [target.workId], priority: 1, reason: 'operator_reprioritized' }));

    const backend = storeBackend(new LocalGitStore({ repo }), { principal: PRINCIPAL, basis: 'test' });
    const claimId = claimed.currentClaim!;
    expect(await backend.publish({ action: 'cancel_claims', requestId: 'tui-admin-table-1', reason: 'operator_cancelled', ids: [claimId], priority: null })).toMatchObject({ status: 'committed' });
    await expectTableRequest(store, 'cancel-claim', () => ({ claim_ids: [claimId], reason: 'operator_cancelled' }));

    const config: ConsoleConfig = { source: { kind: 'repo', repo, branch: 'work-queue' }, demo: false, mode: 'local', pollMs: 5000, principal: PRINCIPAL, fixedNow: NOW };
    const victim = available.find((w) => w.workId !== target.workId)!;
    const outcome = await runAdminAction(new ConsoleRuntime(config, new LocalGitStore({ repo })), 'cancel-work', { work_ids: [victim.workId], reason: 'operator_cancelled' }, PRINCIPAL);
    expect(outcome.status).toBe('committed');
    await expectTableRequest(store, 'cancel-work', () => ({ work_ids: [victim.workId], reason: 'operator_cancelled' }));
  });
});
