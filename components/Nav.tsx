/** The top bar: product, primary navigation, source, live status and the signed-in viewer. */
import Link from 'next/link';
import { Suspense } from 'react';
import type { Viewer } from '../lib/auth/guard.ts';
import { LiveStatus } from './LiveStatus.tsx';
import { NavLinks } from './NavLinks.tsx';
import { SignOutButton } from './SignOutButton.tsx';

const LINKS = [
  ['/', 'Overview'],
  ['/work', 'Work'],
  ['/next', 'Next'],
  ['/graphs', 'Graphs'],
  ['/fairness', 'Fairness'],
  ['/commits', 'Commits'],
  ['/admin', 'Admin'],
] as const;

export function Nav({ viewer, source, demo, pollMs }: { viewer: Viewer | null; source: string; demo: boolean; pollMs: number }) {
  return (
    <header className="sticky top-0 z-30 bg-slate-900 text-slate-100 shadow">
      <div className="mx-auto flex h-12 max-w-[1400px] items-center gap-5 px-4">
        <Link href="/" className="flex items-center gap-2 font-semibold tracking-tight text-white hover:no-underline" prefetch={false}>
          <span className="inline-block h-5 w-5 rounded-sm bg-gradient-to-br from-emerald-400 to-sky-500" aria-hidden />
          Fairway
          {demo && <span className="rounded bg-violet-600 px-1.5 py-0.5 text-[10px] font-bold uppercase tracking-wider">demo</span>}
        </Link>
        <nav className="flex items-center gap-1 text-sm">
          <Suspense fallback={LINKS.map(([href, label]) => <Link key={href} href={href} prefetch={false} className="rounded px-2.5 py-1 text-slate-200">{label}</Link>)}>
            <NavLinks links={LINKS} />
          </Suspense>
        </nav>
        <div className="ml-auto flex items-center gap-4 text-xs">
          <span className="hidden max-w-[28ch] truncate text-slate-400 lg:inline" title={source}>{source}</span>
          <Suspense fallback={null}>
            <LiveStatus pollMs={pollMs} />
          </Suspense>
          {viewer === null ? (
            <Link href="/login" prefetch={false} className="rounded border border-slate-600 px-2 py-1 text-slate-100 hover:bg-slate-700 hover:no-underline">Sign in</Link>
          ) : (
            <span className="flex items-center gap-2">
              <span data-testid="viewer-role" className={`rounded px-1.5 py-0.5 font-semibold ${viewer.role === 'administrator' ? 'bg-amber-400 text-slate-900' : 'bg-slate-600 text-white'}`}>
                {viewer.role}
              </span>
              <SignOutButton />
            </span>
          )}
        </div>
      </div>
    </header>
  );
}
