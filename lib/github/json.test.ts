import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../../engine/errors.ts';
import { GitHubId, GitHubInt, parseGitHubJson, validate } from './json.ts';
import { DispatchResponseSchema, WorkflowRunSchema } from './schemas.ts';

function code(run: () => unknown): string | undefined {
  try {
    run();
  } catch (e) {
    return isProtocolError(e) ? e.code : 'not-a-protocol-error';
  }
  return undefined;
}

describe('lossless GitHub bodies', () => {
  it('IDs above 2^53 round-trip exactly (contract fixture value 9007199254740993)', () => {
    const text = '{"workflow_run_id":9007199254740993,"run_url":"https://api.github.com/repos/a/b/actions/runs/9007199254740993","html_url":"https://github.com/a/b/actions/runs/9007199254740993"}';
    expect(JSON.parse(text).workflow_run_id).toBe(9007199254740992); // what a float parser does
    const body = validate(DispatchResponseSchema, parseGitHubJson(text, 't'), 't');
    expect(body.workflow_run_id).toBe('9007199254740993');
  });
  it('ids must be positive canonical integers; counters must be safe', () => {
    const id = (t: string) => validate(GitHubId, parseGitHubJson(t, 't'), 't');
    expect(id('18446744073709551615')).toBe('18446744073709551615');
    expect(code(() => id('1.5'))).toBe('github_response_invalid');
    expect(code(() => id('0'))).toBe('github_response_invalid');
    expect(code(() => id('-3'))).toBe('github_response_invalid');
    expect(code(() => id('"12"'))).toBe('github_response_invalid');
    expect(code(() => validate(GitHubInt, parseGitHubJson('9007199254740993', 't'), 't'))).toBe('github_response_invalid');
  });
  it('duplicate keys and malformed text are invalid responses, not data', () => {
    expect(code(() => parseGitHubJson('{"id":1,"id":2}', 't'))).toBe('github_response_invalid');
    expect(code(() => parseGitHubJson('{"id":', 't'))).toBe('github_response_invalid');
  });
  it('required decision fields are never defaulted', () => {
    const run = { id: 5, run_attempt: 1, path: 'p', head_sha: 'h', event: 'workflow_dispatch', status: 'queued', conclusion: null, display_title: 't', created_at: 'x', actor: { id: 1, login: 'l' }, repository: { id: 2, full_name: 'a/b' } };
    const parse = (v: unknown) => validate(WorkflowRunSchema, parseGitHubJson(JSON.stringify(v), 't'), 't');
    expect(parse(run)).toMatchObject({ id: '5', actor: { id: '1' } });
    const { run_attempt: _drop, ...missing } = run;
    expect(code(() => parse(missing))).toBe('github_response_invalid');
  });
});
