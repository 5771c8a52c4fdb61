'use client';
/**
 * The ledger tip the page on screen was rendered from (docs/console.md "Live updates").
 * Every live page's frame renders one; `LiveStatus` refreshes the page when the polled tip
 * differs from it. Comparing with the page, not only with the poller's previous read, covers
 * a commit that lands between the server render and the poller's first read: that first read
 * already returns the new tip, and the page would otherwise stay behind until the next commit.
 */
import { useEffect } from 'react';

let shown: { tip: string; owner: object } | null = null;

/** The tip of the page on screen, or null (a pinned page, the login page, none mounted yet). */
export function shownTip(): string | null {
  return shown?.tip ?? null;
}

export function ShownTip({ tip }: { tip: string | null }) {
  useEffect(() => {
    if (tip === null) return;
    const owner = {};
    shown = { tip, owner };
    return () => {
      if (shown?.owner === owner) shown = null;
    };
  }, [tip]);
  return null;
}
