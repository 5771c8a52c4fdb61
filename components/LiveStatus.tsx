'use client';
/**
 * Live updates (docs/console.md "Live updates"): polls the ledger tip with react-query; when it
 * is not the tip the page was rendered from (ShownTip.tsx), the server-rendered page is refreshed. A failed read leaves the
 * page as it was (the last good view) and raises a banner. Pinned (`?at=`)
 * pages are permalinks and never refresh by themselves.
 */
import { useQuery } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { shownTip } from './ShownTip.tsx';

interface TipResponse {
  ok: boolean;
  tip?: string | null;
  commits?: number;
  stale?: { code: string; since: number } | null;
  error?: { code: string; message: string };
}

async function fetchTip(): Promise<TipResponse> {
  const res = await fetch('/api/tip', { cache: 'no-store', headers: { accept: 'application/json' } });
  const body = (await res.json().catch(() => ({ ok: false, error: { code: 'bad_response', message: `HTTP ${res.status}` } }))) as TipResponse;
  if (!res.ok || !body.ok) throw new Error(body.error?.code ?? `http_${res.status}`);
  return body;
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19) + 'Z';
}

export function LiveStatus({ pollMs }: { pollMs: number }) {
  const router = useRouter();
  const pinned = useSearchParams().get('at') !== null;
  const seen = useRef<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const q = useQuery({ queryKey: ['tip'], queryFn: fetchTip, refetchInterval: pollMs, refetchIntervalInBackground: false });

  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, []);

  const tip = q.data?.tip ?? null;
  useEffect(() => {
    if (tip === null) return;
    // Behind when the polled tip is not the one the page was rendered from (ShownTip), or, on
    // a page that names none, when it moved since the previous read.
    const rendered = shownTip();
    const behind = rendered !== null ? rendered !== tip : seen.current !== null && seen.current !== tip;
    if (behind && !pinned) router.refresh();
    seen.current = tip;
  }, [tip, pinned, router]);

  const failing = q.isError || (q.data?.stale ?? null) !== null;
  const lastGood = q.dataUpdatedAt;
  const staleFor = lastGood === 0 ? 0 : now - lastGood;
  const tooOld = lastGood > 0 && staleFor > pollMs * 3;
  return (
    <>
      <span data-testid="live-status" className="inline-flex items-center gap-1.5 text-xs text-slate-300" title={tip ?? ''}>
        <span className={`h-2 w-2 rounded-full ${failing || tooOld ? 'bg-amber-400' : q.isSuccess ? 'bg-emerald-400' : 'bg-slate-500'}`} />
        {failing ? 'stale' : pinned ? 'pinned' : 'live'}
        {lastGood > 0 && <span className="text-slate-400">· checked {clock(lastGood)}</span>}
      </span>
      {(failing || tooOld) && (
        <div role="alert" data-testid="stale-banner" className="fixed inset-x-0 top-12 z-40 mx-auto w-fit rounded-b-md border border-amber-500 bg-amber-100 px-4 py-1.5 text-sm text-amber-950 shadow">
          <strong>Stale:</strong>{' '}
          {q.isError ? `the last ledger read failed (${(q.error as Error).message})` : q.data?.stale ? `the server cannot read the ledger (${q.data.stale.code})` : 'no fresh read for a while'}
          {lastGood > 0 ? ` — showing the last good view, checked at ${clock(lastGood)}.` : '.'}
        </div>
      )}
    </>
  );
}
