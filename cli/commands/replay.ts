/** `fairway replay --ledger FILE`: the projection summary. */
import { summarize, type Projection } from '../../engine/replay/index.ts';
import type { CommandModule } from '../context.ts';
import { printJson, type Io } from '../output.ts';
import { readSource } from '../source.ts';

export async function replay(io: Io, opts: { projection: Projection; json: boolean }): Promise<void> {
  const { projection } = opts;
  const s = summarize(projection);
  if (opts.json) {
    printJson(io, { ok: true, ...s });
    return;
  }
  const states = Object.entries(s.works.by_state).map(([k, v]) => `${k} ${v}`).join(', ');
  const native = Object.values(s.reservations.native_outstanding).reduce((a, b) => a + b, 0);
  const logical = Object.values(s.reservations.logical_outstanding).reduce((a, b) => a + b, 0);
  io.out([
    `tip         ${s.tip ?? '(empty)'} (${s.commits} commits)`,
    `policy      ${s.policy ? `${s.policy.epoch} (${s.policy.mode})` : '-'}`,
    `controls    admission ${s.controls.admission_paused ? 'PAUSED' : 'open'}, grants ${s.controls.grants_paused ? 'PAUSED' : 'open'}`,
    `work        ${s.works.total}: ${states}`,
    `claims      ${s.claims.total}: open ${s.claims.open}, completed ${s.claims.completed}, cancelled ${s.claims.cancelled}`,
    `reserved    logical ${logical}, native ${native}`,
    `barriers    pending ${s.barriers.pending}, verified ${s.barriers.verified}, failed ${s.barriers.failed}`,
  ].join('\n'));
}

export const registerReplay: CommandModule = (program, ctx) => {
  program.command('replay')
    .alias('read')
    .description('Replay a ledger and print the projection summary: Work by state, Claims, reservations, barriers, controls, policy.')
    .action(ctx.action(async (g) => {
      await replay(ctx.io, { projection: await readSource(g).load(), json: g.json === true });
    }));
};
