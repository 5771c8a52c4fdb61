/** The keyboard help (`?`), shown as a scrollable overlay. */
import { wrap } from './layout.ts';

const KEYS: Array<[string, string]> = [
  ['Up/Down or j/k, PgUp/PgDn, g/G', 'move through Work and Claim attempts'],
  ['Left/Right or h/l', 'collapse/expand Claim history (and graphs)'],
  ['Tab or Enter', 'focus details (arrows/page keys scroll it)'],
  ['/ then Enter', 'case-insensitive id/metadata search (Esc: cancel)'],
  ['Space', 'select / unselect (kept while hidden by search)'],
  ['c', 'review cancellation (Work: cancel-work, Claims: cancel-claim)'],
  ['p', 'review a priority override, then 1..5'],
  ['y / n or Esc', 'publish / dismiss the reviewed action'],
  ['r  ?  q', 'refresh, this help, quit'],
  ['Esc', 'clear search and selection'],
];

const NOTES = [
  'MARKERS  > cursor   [x] selected   [~] some of a graph selected   + collapsed   - expanded   >> focused pane',
  '',
  'The view refreshes every 10 s while idle; search and action review pause it. Actions publish as administrator through the checked publisher with a stable request id; an uncertain outcome stays listed: fairway explain --request-id ID shows its commit and what it did, or unknown_request when it never committed. A failed read keeps the last view, marked STALE, and nothing publishes on it until a read succeeds (r). Payloads and receipt bodies are never shown.',
];

/** Help lines for this width: a key table when wide, key then description when narrow. */
export function helpLines(width: number): string[] {
  const table = width >= 90
    ? KEYS.map(([k, d]) => `  ${k.padEnd(32)} ${d}`)
    : KEYS.flatMap(([k, d]) => [k, ...wrap([d], Math.max(1, width - 4)).map((l) => `    ${l}`)]);
  return wrap(['KEYS', ...table, '', ...NOTES], width);
}
