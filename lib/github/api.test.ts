import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../engine/errors.ts';
import { classify, readStatusOf } from './api.ts';

describe('readStatusOf: a failed read\'s status, never a bug\'s', () => {
  it('gives the status classify recorded, and unavailable for a protocol refusal without one', () => {
    // Octokit's RequestError shape (lib/store/github-errors.ts isRequestError): with and without a response.
    const request = { method: 'GET', url: 'https://api.github.com/x', headers: {} };
    const notFound = classify(Object.assign(new Error('Not Found'), { status: 404, request, response: { status: 404, url: request.url, headers: {}, data: {} } }), 'read run');
    expect(readStatusOf(notFound)).toBe('not_found');
    const lost = classify(Object.assign(new Error('socket hang up'), { status: 500, request }), 'read run');
    expect(readStatusOf(lost)).toBe('network');
    expect(readStatusOf(new ProtocolError('unknown_dispatch', 'no such dispatch'))).toBe('unavailable');
  });

  it('rethrows a JavaScript error as it is (an exception is not a verdict)', () => {
    const bug = new TypeError('Cannot read properties of undefined (reading \'status\')');
    expect(() => readStatusOf(bug)).toThrow(bug);
  });
});
