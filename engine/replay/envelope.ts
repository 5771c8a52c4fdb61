/**
 * Fast, exact envelope checks on a canonical ledger line (spec 7.17 hot path).
 * The request fingerprint is SHA-256 of canonical({actor,kind,parameters}) and
 * submit/operations requests persist exactly their parameters (contract
 * `fingerprint`, `request_parameters`). In a canonical line those canonical
 * texts are substrings at known spans, so we hash and compare substrings
 * instead of serializing again. Any negative answer falls back to the general
 * check in `apply.ts`, which computes the same result the slow way.
 */
import { canonicalize, sha256Hex, type MemberSpans } from '../codec/index.ts';
import type { QueueCommit } from '../schema/index.ts';
import { OPERATIONS_KINDS } from './rules.ts';

export interface EnvelopeVerdict {
  fingerprintVerified: boolean;
  parametersVerified: boolean;
}

const NOTHING: EnvelopeVerdict = { fingerprintVerified: false, parametersVerified: false };

export function verifyEnvelopeText(text: string, spans: MemberSpans, commit: QueueCommit): EnvelopeVerdict {
  const actor = spans.get('actor');
  const request = spans.get('request');
  const operations = spans.get('operations');
  if (actor === undefined || request === undefined || operations === undefined) return NOTHING;
  const { kind, fingerprint, id } = commit.request;
  const kindText = canonicalize(kind);
  const head = `{"fingerprint":${canonicalize(fingerprint)},"id":${canonicalize(id)},"kind":${kindText},"parameters":`;
  // The request object's keys are exactly these four (closed schema), so parameters run to its closing brace.
  if (!text.startsWith(head, request[0])) return NOTHING;
  const params = text.slice(request[0] + head.length, request[1] - 1);
  const actorText = text.slice(actor[0], actor[1]);
  const fingerprintVerified = sha256Hex(`{"actor":${actorText},"kind":${kindText},"parameters":${params}}`) === fingerprint;

  const opsText = text.slice(operations[0], operations[1]);
  let parametersVerified = false;
  if (kind === 'submit') parametersVerified = commit.operations.every((op) => op.kind === 'Work') && params === `{"nodes":${opsText}}`;
  else if (OPERATIONS_KINDS.has(kind)) parametersVerified = params === `{"operations":${opsText}}`;
  return { fingerprintVerified, parametersVerified };
}
