/**
 * The worker assignment of one dispatch group (spec 7.14 `work_queue_assignment`;
 * shape of canonical-prefix.json `assignment`): provenance envelope plus one
 * member per Claim with the Work payload and its declared Result inputs
 * (spec 7.15). Packing bounds its canonical UTF-8 size (spec 7.17: 48 KiB).
 */
import { canonicalize, canonicalSize, canonicalSizeAt, canonicalStringSize } from '../codec/index.ts';
import { ARRAY_MEMBER_LIMIT } from '../codec/json.ts';
import { fail } from '../errors.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import type { ReplayState, WorkRecord } from '../state/state.ts';
import type { ResultInput } from '../state/ready-index.ts';
import { unforked } from '../state/unforked.ts';
import { definedBySource } from '../state/definitions.ts';

export const ASSIGNMENT_VERSION = 3;

export interface AssignmentProvenance {
  dispatch_id: string;
  request_id: string;
  commit_id: string;
  policy_epoch: string;
  pool: string;
  worker_profile: string;
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * `canonicalSize(text)` of a string value (the codec's string measure: printable ASCII without
 * `"` or a backslash, every identity the packer writes, is its length plus the quotes).
 */
export function stringBytes(text: string): number {
  return canonicalStringSize(text);
}

/** Declared Work predecessors' verified Results, in `depends_on` order. */
export function resultRefs(state: ReplayState, work: WorkRecord): JsonObject[] {
  const refs: JsonObject[] = [];
  for (const edge of work.dependsOn) {
    if (edge.kind !== 'work') continue;
    const input = resultInput(state, edge.work_id);
    refs.push({ work_id: edge.work_id, result_commit_id: input.result_commit_id, descriptor: input.descriptor });
  }
  return refs;
}

/** The verified Result a member's ref to predecessor `workId` carries, or the error saying why there is none. */
function resultInput(state: ReplayState, workId: string): ResultInput {
  const parent = state.works.get(workId);
  if (parent?.barrier !== 'verified') return fail('dependency_result_unavailable', `declared Result of ${workId} is not verified`);
  const input = state.ready.results.get(workId);
  if (input === undefined) return fail('result_input_missing', `no Result descriptor recorded for ${workId}`);
  return input;
}

/**
 * `canonicalSize` of a member's `result_refs`, at its depth in the member (so with its errors):
 * its brackets and commas and each ref's bytes, in order (so the first error is the first ref's).
 */
function resultRefsBytes(refs: JsonValue[]): number {
  if (refs.length === 0) return 2;
  if (refs.length > ARRAY_MEMBER_LIMIT) return canonicalSize({ result_refs: refs }) - REFS_FRAME; // with its error
  let n = refs.length + 1;
  for (let i = 0; i < refs.length; i++) n += refBytes(refs[i] as JsonObject);
  return n;
}

/**
 * Canonical sizes of Result descriptors at their depth in a member (member, `result_refs`, ref,
 * descriptor: 3), by the descriptor recorded in the ready index (`state.ready.results`), which
 * every ref to that Result shares and nothing writes: a Work with a predecessor's Result is
 * measured at every grant it is a candidate in.
 */
const descriptorBytes = new WeakMap<JsonObject, number>();
const DESCRIPTOR_DEPTH = 3;

/**
 * `canonicalSize` of one `resultRefs` entry at depth 2: its frame and its values in canonical key
 * order (descriptor, result_commit_id, work_id), so any error is the one measuring it meets first.
 */
function refBytes(ref: JsonObject): number {
  return refBytesOf(ref.descriptor as JsonValue, ref.result_commit_id as string, ref.work_id as string);
}

/** `refBytes` of the ref `{ work_id, result_commit_id, descriptor }`, from its three values. */
function refBytesOf(descriptor: JsonValue, resultCommitId: string, workId: string): number {
  let d: number | undefined;
  if (typeof descriptor === 'object' && descriptor !== null && !Array.isArray(descriptor)) {
    d = descriptorBytes.get(descriptor);
    if (d === undefined) descriptorBytes.set(descriptor, (d = canonicalSizeAt(descriptor, DESCRIPTOR_DEPTH)));
  } else {
    d = canonicalSizeAt(descriptor, DESCRIPTOR_DEPTH);
  }
  return REF_FRAME + d + stringBytes(resultCommitId) + stringBytes(workId);
}

/**
 * Canonical payload sizes by Work record, beside the state (not a field of it: the record is
 * also a view's document, and planning never writes the state).
 */
const measured = new WeakMap<WorkRecord, number>();

/** Records the payload size measured at admission (replay/ops/work.ts). */
export function notePayloadBytes(work: WorkRecord, bytes: number): void {
  measured.set(work, bytes);
}

/** Canonical UTF-8 bytes of a Work's payload: as measured at admission, else computed once per Work. */
export function payloadBytes(work: WorkRecord): number {
  const record = unforked(work); // a fork's view of a record: its projection's measure
  let bytes = measured.get(record);
  if (bytes === undefined) measured.set(record, (bytes = canonicalSize(record.definition.payload as JsonValue)));
  return bytes;
}

/** One assignment member (AssignmentClaim.json). */
export function assignmentMember(state: ReplayState, work: WorkRecord, claimId: string, handle: string): JsonObject {
  return { handle, claim_id: claimId, work_id: work.workId, work: memberPayload(work), result_refs: resultRefs(state, work) };
}

/** A Work's payload as its members carry it: an object, or `work_invalid`. */
function memberPayload(work: WorkRecord): JsonObject {
  const payload: JsonValue | undefined = work.definition.payload;
  if (payload === undefined || payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return fail('work_invalid', `Work ${work.workId} has no payload object`);
  }
  return payload;
}

/**
 * `AssignmentSize.memberBytesOf(assignmentMember(state, work, claimId, handle), work)` without
 * writing the member or its Result refs (replay's grant check sizes every Claim it re-derives
 * and keeps none): the same checks in the same order, so the same first error. The payload is
 * checked, then every declared Result (`resultRefs`), then the values are measured in canonical
 * key order.
 */
export function memberBytesFor(state: ReplayState, work: WorkRecord, claimId: string, handle: string): number {
  // A Work replay admitted has a schema-checked object payload, and its definition is read back
  // from its record when asked (state/definitions.ts): its measured size (`payloadBytes`) stands for it.
  if (!definedBySource(work)) memberPayload(work);
  let refs = 0;
  for (const edge of work.dependsOn) {
    if (edge.kind !== 'work') continue;
    resultInput(state, edge.work_id);
    refs++;
  }
  if (refs > ARRAY_MEMBER_LIMIT) return AssignmentSize.memberBytesOf(assignmentMember(state, work, claimId, handle), work); // with its error
  // In canonical key order (claim_id, handle, result_refs, work_id, work), as `memberBytesOf`.
  let n = MEMBER_FRAME + stringBytes(claimId) + stringBytes(handle);
  if (refs === 0) n += 2;
  else {
    n += refs + 1;
    for (const edge of work.dependsOn) {
      if (edge.kind !== 'work') continue;
      const input = state.ready.results.get(edge.work_id)!;
      n += refBytesOf(input.descriptor as JsonValue, input.result_commit_id, edge.work_id);
    }
  }
  return n + stringBytes(work.workId) + payloadBytes(work);
}

export function assignment(provenance: AssignmentProvenance, members: JsonObject[]): JsonObject {
  return { version: ASSIGNMENT_VERSION, ...provenance, claims: members };
}

/** `{"claim_id":,"handle":,"result_refs":,"work":,"work_id":}`: an assignment member's text less its values. */
const MEMBER_FRAME = canonicalSize({ claim_id: 0, handle: 0, result_refs: 0, work: 0, work_id: 0 }) - 5;
/** `{"result_refs":}`. */
const REFS_FRAME = canonicalSize({ result_refs: 0 }) - 1;
/** `{"descriptor":,"result_commit_id":,"work_id":}`: a Result ref's text less its values. */
const REF_FRAME = canonicalSize({ descriptor: 0, result_commit_id: 0, work_id: 0 }) - 3;
/** An empty assignment less its six provenance strings (`"claims":[]` and `"version":3` included). */
const ENVELOPE_FRAME = canonicalSize(assignment({ dispatch_id: '', request_id: '', commit_id: '', policy_epoch: '', pool: '', worker_profile: '' }, [])) - 6 * 2;

/**
 * Canonical byte size of a growing assignment without re-serializing it:
 * `"claims":[m1,m2]` adds each member's bytes plus one comma between members.
 */
export class AssignmentSize {
  private readonly base: number;
  private members = 0;
  private memberBytes = 0;

  constructor(provenance: AssignmentProvenance) {
    this.base = AssignmentSize.envelopeBytes(provenance);
  }

  /**
   * `canonicalSize(assignment(provenance, []))` from its values, in canonical key order (so any
   * error is the one measuring the whole envelope meets first) inside its fixed frame.
   */
  static envelopeBytes(p: AssignmentProvenance): number {
    return ENVELOPE_FRAME + stringBytes(p.commit_id) + stringBytes(p.dispatch_id) + stringBytes(p.policy_epoch) + stringBytes(p.pool) + stringBytes(p.request_id) + stringBytes(p.worker_profile);
  }

  static memberBytes(member: JsonObject): number {
    return utf8Bytes(canonicalize(member));
  }

  /**
   * `memberBytes(member)` for a member of `work` (from `assignmentMember`) without writing it:
   * the canonical text of an object is the concatenation of its members, so its size is that of
   * its frame plus its values', and its `work` is the payload, whose canonical size is measured
   * once per Work (`payloadBytes`; its errors, if any, come after the member's own, as when the
   * member was measured with `{}` as its `work`).
   */
  static memberBytesOf(member: JsonObject, work: WorkRecord): number {
    // Values in canonical key order (claim_id, handle, result_refs, work_id), so any error is
    // the one measuring the whole member meets first.
    return (
      MEMBER_FRAME +
      stringBytes(member.claim_id as string) +
      stringBytes(member.handle as string) +
      resultRefsBytes(member.result_refs as JsonValue[]) +
      stringBytes(member.work_id as string) +
      payloadBytes(work)
    );
  }

  /** Size with one more member of `bytes`. */
  withMember(bytes: number): number {
    return this.base + this.memberBytes + bytes + (this.members > 0 ? 1 : 0);
  }

  add(bytes: number): void {
    this.memberBytes += bytes + (this.members > 0 ? 1 : 0);
    this.members++;
  }

  get total(): number {
    return this.base + this.memberBytes;
  }
}
