/**
 * The size of a Work payload that admission checks against `payload_bytes` (spec 7.17: limits
 * are on canonical UTF-8 bytes) and hands to the scheduler's assignment packing.
 *
 * `canonicalSize` measures the canonical text without writing it. Where `canonicalize` refuses
 * the payload (an unpaired surrogate, a number that is not a safe integer, nesting past the
 * limit: values a hand-built commit can hold, a validated ledger record cannot), the size is
 * what it always was: the UTF-8 length of `JSON.stringify`, which spells a well-formed value
 * exactly as `canonicalize` does up to key order, and the scheduler keeps it as the canonical
 * size, as before, when the text escapes no surrogate (it measures, and refuses, the others).
 */
import { canonicalSize } from '../../codec/index.ts';
import { isProtocolError } from '../../errors.ts';
import type { JsonValue } from '../../json.ts';
import { utf8Bytes } from '../../scheduler/assignment.ts';

export interface PayloadSize {
  bytes: number;
  /** `bytes` is the canonical size (the scheduler may keep it). */
  canonical: boolean;
}

/** The payload's size (see the module comment). */
export function payloadSize(payload: unknown): PayloadSize {
  let bytes: number;
  try {
    bytes = canonicalSize(payload as JsonValue);
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return stringifiedSize(payload);
  }
  return { bytes, canonical: true };
}

/** The measure without `canonicalSize` (and the differential tests' reference). */
export function stringifiedSize(payload: unknown): PayloadSize {
  const text = JSON.stringify(payload);
  return { bytes: utf8Bytes(text), canonical: !text.includes('\\ud') };
}
