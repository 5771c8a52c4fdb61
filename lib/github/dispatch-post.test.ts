import { describe, expect, it } from 'vitest';
import { postWorkflowDispatch } from './dispatch-post.ts';

const target = { owner: 'o', repo: 'r', workflow: '.github/workflows/worker.yml', ref: 'main', inputs: {} };

describe('postWorkflowDispatch: an API root that carries credentials', () => {
  it('is a definitive nonlaunch (dispatch_not_sent): nothing was sent, and the message does not repeat the secret', async () => {
    let fetched = 0;
    const fetch = (async () => {
      fetched += 1;
      throw new Error('unreachable');
    }) as unknown as typeof globalThis.fetch;
    const outcome = await postWorkflowDispatch({ token: 't', baseUrl: 'https://user:s3cret@ghe.example.com/api/v3', fetch }, target);
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'dispatch_not_sent', httpStatus: null });
    expect(JSON.stringify(outcome)).not.toContain('s3cret');
    expect(fetched).toBe(0);
  });
});
