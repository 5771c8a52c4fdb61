/**
 * Which errors of one group's launch let `launch --next` go on to the next group (a refusal
 * of that group's request, nothing written) and which stop it (the queue in doubt, or a bug).
 */
import { describe, expect, it } from 'vitest';
import { ProtocolError, refusedCandidate } from '../../engine/errors.ts';
import { publishRequest } from '../publisher/requests.ts';
import type { Publisher } from '../publisher/publisher.ts';
import { groupRefusal } from './launch-batch.ts';

/** The error a request's builder throws, as the publisher hands it back (a publisher that only prepares). */
async function builderRefusal(error: ProtocolError): Promise<unknown> {
  const preparing = { publish: async (input: { prepare: (p: unknown, c: unknown) => unknown }) => input.prepare(null, null) } as unknown as Publisher;
  return publishRequest(preparing, { requestId: 'r', actor: { role: 'dispatcher', principal: '1' }, prepare: () => { throw error; } }).catch((e: unknown) => e);
}

describe('launch --next: one group\'s error', () => {
  it('a refusal of the group\'s own request (its builder, its candidate commit, its request id) lets the batch go on', async () => {
    expect(groupRefusal(await builderRefusal(new ProtocolError('group_closing', 'closing began')))).toBe(true);
    expect(groupRefusal(refusedCandidate(new ProtocolError('sender_mismatch', 'not the sender')))).toBe(true);
    expect(groupRefusal(new ProtocolError('request_id_conflict', 'another meaning'))).toBe(true);
  });

  it('a failed or uncertain publication, an invalid ledger or a JavaScript exception stops it', () => {
    expect(groupRefusal(new ProtocolError('store_locked', 'locked'))).toBe(false);
    expect(groupRefusal(new ProtocolError('publish_retries_exhausted', 'gave up'))).toBe(false);
    expect(groupRefusal(new ProtocolError('fingerprint_mismatch', 'the ledger', { commit: 'q_1', line: 3 }))).toBe(false);
    expect(groupRefusal(new TypeError('x is undefined'))).toBe(false);
  });
});
