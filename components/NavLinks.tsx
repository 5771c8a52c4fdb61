'use client';
/** The top bar's page links; a pinned `?at=` commit stays pinned while you move between pages (docs/console.md). */
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { withAt } from '../lib/console/links.ts';

export function NavLinks({ links }: { links: ReadonlyArray<readonly [string, string]> }) {
  const at = useSearchParams().get('at');
  return (
    <>
      {links.map(([href, label]) => (
        <Link key={href} href={withAt(href, at)} prefetch={false} data-testid={`nav-${label.toLowerCase()}`} className="rounded px-2.5 py-1 text-slate-200 hover:bg-slate-700 hover:text-white hover:no-underline">
          {label}
        </Link>
      ))}
    </>
  );
}
