/**
 * The console's 404 (docs/console.md): unknown Work, graphs, receipts, `?at=`
 * commits and pages all answer HTTP 404 with this page, which names what was
 * looked for (from the path proxy.ts hands over) and links the way back.
 */
import Link from 'next/link';
import { headers } from 'next/headers';
import { consoleRuntime } from '../lib/console/context.ts';
import { describeMissing, PATH_HEADER } from '../lib/console/not-found.ts';

/** Whether the `at` commit of the path is in the validated ledger (null: no `at`, or no readable ledger). */
async function commitKnown(pathAndQuery: string | null): Promise<boolean | null> {
  const at = new URL(pathAndQuery ?? '/', 'http://console.invalid').searchParams.get('at');
  if (at === null || at === '') return null;
  try {
    const live = await consoleRuntime().live();
    return live.projection.commitPosition(at) !== undefined;
  } catch {
    return null;
  }
}

export default async function NotFound() {
  const path = (await headers()).get(PATH_HEADER);
  const m = describeMissing(path, await commitKnown(path));
  return (
    <div role="alert" data-testid="not-found" data-code={m.code} className="card card-b mx-auto max-w-3xl space-y-3">
      <p className="text-xs font-semibold uppercase tracking-wider text-slate-500">HTTP 404 · <code>{m.code}</code></p>
      <h1>{m.title}</h1>
      <p className="break-words">{m.message}</p>
      <nav className="flex flex-wrap gap-2">
        {m.links.map((l) => <Link key={l.href} href={l.href} prefetch={false} className="btn">{l.label}</Link>)}
      </nav>
    </div>
  );
}
