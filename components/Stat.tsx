/** A count tile that links to the explorer filtered to it. */
import Link from 'next/link';

export function Stat({ label, value, href, testId }: { label: string; value: number; href?: string; testId?: string }) {
  const body = (
    <>
      <div className="text-[11px] font-semibold uppercase tracking-wide text-slate-500">{label}</div>
      <div className="text-2xl font-semibold tabular-nums text-slate-900" data-testid={testId}>{value}</div>
    </>
  );
  return href === undefined ? (
    <div className="rounded-md border border-slate-200 bg-slate-50 px-3 py-2">{body}</div>
  ) : (
    <Link prefetch={false} href={href} className="block rounded-md border border-slate-200 bg-slate-50 px-3 py-2 hover:border-blue-400 hover:bg-blue-50 hover:no-underline">{body}</Link>
  );
}
