/**
 * What the console's 404 page says (docs/console.md): which kind of thing was not
 * found, from the request path (proxy.ts hands it to the page in the
 * `x-fairway-path` request header), and the way back. An unknown `?at=`
 * commit is named as such, never as a ledger read failure. Pure.
 */

export const PATH_HEADER = 'x-fairway-path';

export interface Missing {
  /** Stable code shown on the page. */
  code: 'unknown_commit' | 'unknown_work' | 'unknown_graph' | 'unknown_request' | 'unknown_page';
  title: string;
  message: string;
  /** The id looked for (null for an unknown page). */
  id: string | null;
  /** Where to go instead. */
  links: Array<{ href: string; label: string }>;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Bounded for display (the page escapes it; this keeps a hostile URL from filling the screen). */
function shown(id: string): string {
  return id.length > 160 ? `${id.slice(0, 157)}…` : id;
}

/**
 * The missing thing of `pathAndQuery` (e.g. `/work/abc?at=q_1`). `commitKnown`
 * says whether its `at` commit is in the ledger (null: no `at`, or it could
 * not be checked).
 */
export function describeMissing(pathAndQuery: string | null, commitKnown: boolean | null): Missing {
  const url = new URL(pathAndQuery ?? '/', 'http://console.invalid');
  const at = url.searchParams.get('at');
  const live = url.pathname;
  if (at !== null && at !== '' && commitKnown === false) {
    return {
      code: 'unknown_commit',
      title: 'Unknown commit',
      message: `The time-travel commit ${shown(at)} is not in this queue's validated ledger. Commit ids start with q_; pick one from the Commits page.`,
      id: at,
      links: [{ href: live, label: 'This page, live' }, { href: '/commits', label: 'Commits' }],
    };
  }
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const [first, second] = segments;
  const pinned = at !== null && at !== '' ? ' at this commit' : '';
  const back = at !== null && at !== '' ? [{ href: live, label: 'The same id, live' }] : [];
  if (segments.length === 2 && first === 'work') {
    return { code: 'unknown_work', title: 'Unknown Work', message: `No Work with id ${shown(decoded(second!))} is in the ledger${pinned}. Work ids are 64 hex digits; search the explorer by node key or graph.`, id: decoded(second!), links: [...back, { href: '/work', label: 'Work explorer' }] };
  }
  if (segments.length === 2 && first === 'graphs') {
    return { code: 'unknown_graph', title: 'Unknown graph', message: `No graph with id ${shown(decoded(second!))} is in the ledger${pinned}.`, id: decoded(second!), links: [...back, { href: '/graphs', label: 'Graphs' }] };
  }
  if (segments.length === 2 && first === 'receipts') {
    return { code: 'unknown_request', title: 'Unknown receipt', message: `No committed request with id ${shown(decoded(second!))} is in the ledger${pinned}. A request that never committed has no receipt; \`fairway explain --request-id\` says the same.`, id: decoded(second!), links: [...back, { href: '/commits', label: 'Commits' }] };
  }
  return { code: 'unknown_page', title: 'Page not found', message: `The console has no page at ${shown(url.pathname)}.`, id: null, links: [{ href: '/', label: 'Overview' }, { href: '/work', label: 'Work explorer' }, { href: '/next', label: 'What runs next' }] };
}
