/**
 * An absent GITHUB_RUN_ATTEMPT is no job context (lib/github/context.ts): GitHub sets it in
 * every job, and its absence is not evidence of the original attempt 1, which it used to be
 * read as. The dispatcher's sender run is then `sender_run_missing` naming it (exit 2), and a
 * worker command has no run (`context_missing`).
 */
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../../engine/errors.ts';
import { actionsRunFromEnv, launchSender } from '../../lib/github/context.ts';

const JOB = { GITHUB_RUN_ID: '4242', GITHUB_REPOSITORY: 'acme/queue', GITHUB_WORKFLOW_REF: 'acme/queue/.github/workflows/dispatcher.yml@refs/heads/main' };

describe('job context: GITHUB_RUN_ATTEMPT', () => {
  it('job-context-attempt: an absent or empty GITHUB_RUN_ATTEMPT leaves no run (never attempt 1); launch refuses with sender_run_missing naming it', () => {
    expect(actionsRunFromEnv({ ...JOB, GITHUB_RUN_ATTEMPT: '1' })).toMatchObject({ runId: '4242', runAttempt: 1 });
    expect(actionsRunFromEnv({ ...JOB, GITHUB_RUN_ATTEMPT: '2' })).toMatchObject({ runAttempt: 2 });
    expect(actionsRunFromEnv(JOB)).toBeNull();
    expect(actionsRunFromEnv({ ...JOB, GITHUB_RUN_ATTEMPT: '' })).toBeNull();
    let error: unknown;
    try {
      launchSender('101', 'acme/queue', JOB);
    } catch (e) {
      error = e;
    }
    expect(isProtocolError(error) && error.code).toBe('sender_run_missing');
    expect((error as { details: { missing: string[] } }).details.missing).toEqual(['GITHUB_RUN_ATTEMPT']);
    expect(launchSender('101', 'acme/queue', { ...JOB, GITHUB_RUN_ATTEMPT: '1' })).toMatchObject({ role: 'dispatcher', run_id: '4242', run_attempt: 1 });
  });
});
