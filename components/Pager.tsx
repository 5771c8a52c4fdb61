/** Server-side pagination links. */
import Link from 'next/link';

export function Pager({ page, pages, href }: { page: number; pages: number; href: (page: number) => string }) {
  if (pages <= 1) return null;
  const around = [1, page - 2, page - 1, page, page + 1, page + 2, pages].filter((p, i, a) => p >= 1 && p <= pages && a.indexOf(p) === i).sort((a, b) => a - b);
  return (
    <nav className="flex flex-wrap items-center gap-1 text-sm" aria-label="pages" data-testid="pager">
      {page > 1 && <Link prefetch={false} className="btn" href={href(page - 1)}>← Prev</Link>}
      {around.map((p, i) => (
        <span key={p} className="flex items-center gap-1">
          {i > 0 && around[i - 1]! < p - 1 && <span className="muted">…</span>}
          {p === page ? <span className="rounded bg-slate-800 px-2.5 py-1 text-white">{p}</span> : <Link prefetch={false} className="rounded px-2.5 py-1 hover:bg-slate-200" href={href(p)}>{p}</Link>}
        </span>
      ))}
      {page < pages && <Link prefetch={false} className="btn" href={href(page + 1)}>Next →</Link>}
    </nav>
  );
}
