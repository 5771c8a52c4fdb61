/** Long protocol ids, shortened for display with the full id in a tooltip and copyable text. */
import Link from 'next/link';
import { shortId } from '../lib/console/views/format.ts';

export function Id({ id, length }: { id: string | null | undefined; length?: number }) {
  if (id === null || id === undefined) return <span className="muted">—</span>;
  return <span className="mono" title={id}>{shortId(id, length)}</span>;
}

export function IdLink({ id, href, length }: { id: string; href: string; length?: number }) {
  return <Link href={href} className="mono" title={id} prefetch={false}>{shortId(id, length)}</Link>;
}
