/** Wire codec (spec 7.6): strict JSON, canonical form, ledger framing, digests. */
export {
  ARRAY_MEMBER_LIMIT,
  JSON_ERROR_CODES,
  NESTING_LIMIT,
  PARSER_BYTES,
  canonicalize,
  isWellFormedUnicode,
  parseStrict,
  utf8ByteLength,
} from './json.ts';
export type { ParseLimits } from './json.ts';
export { LINE_BYTES, LINE_ERROR_CODES, decodeAscii, decodeUtf8, frameLedger, parseLedgerRecord, splitLedger } from './lines.ts';
export type { RecordSpans } from './canonical.ts';
export { DESCRIPTOR_AT, EVIDENCE_AT, OPERATION_SPAN, PAYLOAD_AT } from './canonical.ts';
export { canonicalMembers } from './members.ts';
export type { MemberSpans } from './members.ts';
export type { LedgerFrame, LedgerLimits, LedgerLine } from './lines.ts';
export { sha256Hex, sha256HexOfParts } from './digest.ts';
export { canonicalSize, canonicalSizeAt, canonicalStringSize } from './size.ts';
export { sameJson } from './same.ts';
