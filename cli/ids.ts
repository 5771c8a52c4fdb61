/**
 * Unique id prefixes, like git (README "Global options"): every `--work-id`, `--claim-id`,
 * `--dispatch-id` and lookup `--request-id` accepts the full id or a prefix of at least 8
 * characters that names exactly one id of the ledger. An ambiguous prefix is
 * `id_ambiguous` (a usage error) listing the candidates; a shorter prefix of some generated
 * (work, claim, dispatch) id is `id_prefix_short` (a usage error); a value that names none is left as given, so the command
 * answers its own `unknown_work` / `unknown_claim` / ....
 */
import { ProtocolError } from '../engine/errors.ts';
import { isIdentity } from '../engine/identity/validate.ts';
import type { Projection } from '../engine/replay/index.ts';

export const MIN_PREFIX = 8;
const SHOWN = 10;

export type IdKind = 'work' | 'claim' | 'dispatch' | 'request';

const FLAG: Record<IdKind, string> = { work: '--work-id', claim: '--claim-id', dispatch: '--dispatch-id', request: '--request-id' };

/** The full id `value` abbreviates among `ids` (exact ids win; see the module comment). */
export function resolvePrefix(kind: IdKind, value: string, ids: Iterable<string>): string {
  // Not an identity at all (control characters, over 256 bytes): the flag's value is wrong, as
  // --request-id's is (cli/parse.ts identityArg), not an id the ledger lacks.
  if (!isIdentity(value)) {
    throw new ProtocolError('option_invalid', `${FLAG[kind]} must be 1..256 UTF-8 bytes without ASCII control characters, not ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)}`, {}, { usage: true });
  }
  const all = ids instanceof Map ? ids.keys() : ids;
  const matches: string[] = [];
  let short = 0; // generated ids a prefix under MIN_PREFIX characters would have named
  for (const id of all) {
    if (id === value) return id;
    if (!id.startsWith(value) || value === '') continue;
    if (value.length >= MIN_PREFIX) matches.push(id);
    else if (kind !== 'request') short += 1; // request ids are chosen by people: short ones are common
  }
  if (short > 0) {
    throw new ProtocolError('id_prefix_short', `${FLAG[kind]} ${value} is a prefix of ${short} id${short === 1 ? '' : 's'}, but a prefix needs at least ${MIN_PREFIX} characters`,
      {}, { usage: true, kind, prefix: value, min_length: MIN_PREFIX, matches: short });
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    matches.sort();
    const shown = matches.slice(0, SHOWN);
    throw new ProtocolError('id_ambiguous', `${FLAG[kind]} ${value} is ambiguous: ${matches.length} ids start with it (${shown.join(', ')}${matches.length > SHOWN ? ', ...' : ''}); give more characters`,
      {}, { usage: true, kind, prefix: value, candidates: shown, matches: matches.length });
  }
  return value;
}

function* idsOf(p: Projection, kind: IdKind): Iterable<string> {
  switch (kind) {
    case 'work': for (const w of p.works()) yield w.workId; return;
    case 'claim': for (const c of p.claims()) yield c.claimId; return;
    case 'dispatch': for (const d of p.dispatches()) yield d.dispatchId; return;
    case 'request': for (const r of p.requests()) yield r.requestId; return;
  }
}

/** `resolvePrefix` against the ids of one kind in a projection. */
export function resolveId(p: Projection, kind: IdKind, value: string): string {
  return resolvePrefix(kind, value, idsOf(p, kind));
}

/** Optional variant: undefined stays undefined. */
export function resolveOptional(p: Projection, kind: IdKind, value: string | undefined): string | undefined {
  return value === undefined ? undefined : resolveId(p, kind, value);
}
