/**
 * Every page's frame: the loud banners (demo queue, paused controls, time
 * travel, stale reads) and the title. Paused controls are impossible to miss.
 */
import Link from 'next/link';
import type { ReactNode } from 'react';
import type { ConsoleConfig } from '../lib/console/config.ts';
import type { ViewState } from '../lib/console/runtime.ts';
import { commitsAgo } from '../lib/console/links.ts';
import { formatTime, shortId } from '../lib/console/views/format.ts';
import { controlLedgers, pausedSince } from '../lib/console/views/overview.ts';
import { ShownTip } from './ShownTip.tsx';

/** Since when, and why, a control is paused; for a Control compacted out of reach, where it is. */
function Since({ since }: { since: NonNullable<ReturnType<typeof pausedSince>> }) {
  if ('compacted' in since) {
    return <>since a Control compacted into checkpoint <code className="rounded bg-black/20 px-1">{shortId(since.compacted.checkpoint, 12)}</code> (it is in the ledger at Git commit <code className="rounded bg-black/20 px-1">{since.compacted.priorGitSha}</code>, which this console cannot read)</>;
  }
  return <>since {formatTime(since.at)} · reason <code className="rounded bg-black/20 px-1">{since.reason}</code></>;
}

export async function Frame({ view, config, title, path, actions, children }: {
  view: ViewState;
  config: ConsoleConfig;
  title: ReactNode;
  path: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  // A pausing Control a checkpoint replaced is read from the ledger at the checkpoint's prior Git commit.
  const p = view.projection;
  const ledgers = p.controls.grants_paused || p.controls.admission_paused ? await controlLedgers(p, view.history) : [p];
  const grants = pausedSince(view.projection, 'grants_paused', ledgers);
  const admission = pausedSince(view.projection, 'admission_paused', ledgers);
  const stale = view.live.stale;
  const index = view.at === null ? null : view.projection.commitCount;
  return (
    <div className="space-y-4">
      <ShownTip tip={view.at === null ? view.live.projection.tip : null} />
      {config.demo && (
        <div data-testid="demo-banner" className="rounded-md border border-violet-300 bg-violet-50 px-4 py-2 text-sm text-violet-900">
          <strong className="mr-2 rounded bg-violet-700 px-1.5 py-0.5 text-xs font-bold uppercase tracking-wider text-white">Demo</strong>
          This is the embedded <strong>demo queue</strong>: a generated day seeded through the real publisher into a fresh local Git
          repository. Nothing here is a real team&apos;s work. Start with <code>fairway --dir PATH console</code> (or <code>fairway -R OWNER/REPO console</code>) to open your queue.
        </div>
      )}
      {grants !== null && (
        <div role="alert" data-testid="grants-paused-banner" className="rounded-md border-2 border-red-700 bg-red-600 px-4 py-3 text-white shadow">
          <div className="text-lg font-bold tracking-tight">GRANTS PAUSED — no new Claims are being committed</div>
          <div className="text-sm text-red-50">
            <code className="rounded bg-red-800/60 px-1">grants_paused</code> <Since since={grants} />.
            Running work continues; nothing is scheduled until an administrator resumes grants.
          </div>
        </div>
      )}
      {admission !== null && (
        <div role="alert" data-testid="admission-paused-banner" className="rounded-md border-2 border-orange-700 bg-orange-500 px-4 py-3 text-white shadow">
          <div className="text-lg font-bold tracking-tight">ADMISSION PAUSED — new Work is refused</div>
          <div className="text-sm">
            <code className="rounded bg-orange-800/50 px-1">admission_paused</code> <Since since={admission} />.
          </div>
        </div>
      )}
      {view.at !== null && (
        <div data-testid="time-travel-banner" className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-indigo-300 bg-indigo-50 px-4 py-2 text-sm text-indigo-950">
          <span>
            <strong>Time travel:</strong> you are looking at commit <code title={view.at.id}>{shortId(view.at.id, 12)}</code>{' '}
            (<span data-testid="time-travel-ago">{commitsAgo(index! - 1, view.live.projection.commitCount)}</span>; #{index} of{' '}
            {view.live.projection.commitCount}, {formatTime(view.at.at)}). Readiness is evaluated at that commit&apos;s decision time.
            Links keep this commit while you move around.
          </span>
          <Link href={path} className="btn" prefetch={false} data-testid="back-to-live">Back to live</Link>
        </div>
      )}
      {stale !== null && (
        <div role="status" className="rounded-md border border-amber-400 bg-amber-100 px-4 py-2 text-sm text-amber-950">
          <strong>Stale view:</strong> reading the ledger fails since {formatTime(stale.since)} (<code>{stale.code}</code>). Showing the last good read
          from {formatTime(view.live.readAt)}.
        </div>
      )}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h1>{title}</h1>
        {actions}
      </div>
      {children}
    </div>
  );
}

export function LoadError({ code, message }: { code: string; message: string }) {
  return (
    <div role="alert" className="card card-b border-red-300 bg-red-50 text-red-900">
      <h1 className="mb-1">Cannot show this view</h1>
      <p>
        <code>{code}</code>: {message}
      </p>
    </div>
  );
}
