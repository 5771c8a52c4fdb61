/**
 * Fast, exact envelope checks on a canonical ledger line (spec 7.17 hot path).
 * The request fingerprint is SHA-256 of canonical({actor,kind,parameters}) and
 * submit/operations requests persist exactly their parameters (contract
 * `fingerprint`, `request_parameters`). In a canonical line those canonical
 * texts are substrings at known spans, so we hash and compare substrings
 * instead of serializing again. Any negative answer falls back to the general
 * check in `apply.ts`, which computes the same result the slow way.
 */
import { canonicalize, sha256HexOfParts, type MemberSpans, type RecordSpans } from '../codec/index.ts';
import type { QueueCommit } from '../schema/index.ts';
import { OPERATIONS_KINDS } from './rules.ts';

export interface EnvelopeVerdict {
  fingerprintVerified: boolean;
  parametersVerified: boolean;
}

const NOTHING: EnvelopeVerdict = { fingerprintVerified: false, parametersVerified: false };

export function verifyEnvelopeText(text: string, spans: MemberSpans, commit: QueueCommit, record: RecordSpans | null = null): EnvelopeVerdict {
  const actor = spans.get('actor');
  const request = spans.get('request');
  const operations = spans.get('operations');
  if (actor === undefined || request === undefined || operations === undefined) return NOTHING;
  const { kind, fingerprint, id } = commit.request;
  const kindText = kindTextOf(kind);
  let paramsStart: number;
  let paramsEnd: number;
  const parameters = record?.request?.get('parameters');
  if (parameters !== undefined) {
    // The one-pass check recorded the request's members (keys fingerprint, id, kind, parameters: closed schema).
    [paramsStart, paramsEnd] = parameters;
  } else {
    const head = `{"fingerprint":${canonicalize(fingerprint)},"id":${canonicalize(id)},"kind":${kindText},"parameters":`;
    // The request object's keys are exactly these four (closed schema), so parameters run to its closing brace.
    if (!text.startsWith(head, request[0])) return NOTHING;
    paramsStart = request[0] + head.length;
    paramsEnd = request[1] - 1;
  }
  // Hash the fingerprint input piece by piece: the (large) parameters and actor are hashed as
  // spans of the line, never copied into one concatenated string.
  const digest = sha256HexOfParts('{"actor":', text.slice(actor[0], actor[1]), `,"kind":${kindText},"parameters":`, text.slice(paramsStart, paramsEnd), '}');
  const fingerprintVerified = digest === fingerprint;

  // Parameters that are `{"nodes":` or `{"operations":` + the operations' own text + `}`: the
  // one-pass check already found the repeat (`repeats`, a single-member parameters object).
  let parametersVerified = false;
  if (kind === 'submit') parametersVerified = commit.operations.every(isWork) && repeated(text, record, paramsStart, paramsEnd, 'nodes', operations);
  else if (OPERATIONS_KINDS.has(kind)) parametersVerified = repeated(text, record, paramsStart, paramsEnd, 'operations', operations);
  return { fingerprintVerified, parametersVerified };
}

const isWork = (op: QueueCommit['operations'][number]): boolean => op.kind === 'Work';

/** True when the parameters (text[start, end)) are `{"<name>":` + the operations' text + `}`. */
function repeated(text: string, record: RecordSpans | null, start: number, end: number, name: 'nodes' | 'operations', operations: readonly [number, number]): boolean {
  return record?.parameters != null
    ? record.repeats === name && record.parameters.size === 1
    : wraps(text, start, end, `{"${name}":`, operations);
}

/** Canonical texts of the request kinds seen (a closed enum, checked by the schema before this runs). */
const KIND_TEXTS = new Map<string, string>();

function kindTextOf(kind: string): string {
  let text = KIND_TEXTS.get(kind);
  if (text === undefined) KIND_TEXTS.set(kind, (text = canonicalize(kind)));
  return text;
}

/** True when text[start, end) is `prefix` + text[inner] + `}` (compared in place, no concatenation). */
function wraps(text: string, start: number, end: number, prefix: string, inner: readonly [number, number]): boolean {
  const innerLength = inner[1] - inner[0];
  if (end - start !== prefix.length + innerLength + 1) return false;
  if (!text.startsWith(prefix, start) || text.charCodeAt(end - 1) !== 0x7d) return false;
  const from = start + prefix.length;
  return text.slice(from, from + innerLength) === text.slice(inner[0], inner[1]);
}
