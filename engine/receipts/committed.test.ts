import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { requestFingerprint } from '../identity/index.ts';
import type { JsonValue } from '../json.ts';
import { replayLedger } from '../replay/index.ts';
import { committedRequest, hasCommitted } from './committed.ts';
import { dispatchAssignment, dispatchReceipt, grantPlan } from './dispatch.ts';
import { projectionAt } from './prefix.ts';

const fixtures = new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/', import.meta.url);
const have = existsSync(new URL('checkpoint.json', fixtures));
const fixture = have ? JSON.parse(readFileSync(new URL('checkpoint.json', fixtures), 'utf8')) : null;
const bytes = (commits: readonly unknown[]) => new TextEncoder().encode(commits.map((c) => `${canonicalize(c as JsonValue)}\n`).join(''));

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
  return 'accepted';
}

describe.skipIf(!have)('committed requests behind the reference checkpoint (checkpoint.json)', () => {
  it('every compacted request answers from its receipt exactly as its original commit: predecessor, epoch, time, actor, fingerprint, Claims, and submit/dispatch_next parameters that recompute the fingerprint', () => {
    const full = replayLedger(bytes(fixture.history));
    const root = replayLedger(bytes(fixture.checkpoint));
    for (const commit of fixture.history) {
      const id = commit.request.id as string;
      const now = committedRequest(root, id)!;
      const then = committedRequest(full, id)!;
      expect(now.compacted).toBe(true);
      expect(then.compacted).toBe(false);
      expect({ ...now, compacted: false, parameters: null }).toEqual({ ...then, parameters: null });
      if (commit.request.kind === 'submit' || commit.request.kind === 'dispatch_next') {
        expect(now.parameters).toEqual(commit.request.parameters);
        expect(requestFingerprint(now.actor, now.kind, now.parameters!)).toBe(commit.request.fingerprint);
      } else expect(now.parameters).toBeNull();
      expect(hasCommitted(root, commit.id)).toBe(true);
    }
    expect(committedRequest(root, fixture.checkpoint[0].request.id)).toMatchObject({ kind: 'checkpoint', previous: null, compacted: false });
    expect(hasCommitted(root, 'no-such-commit')).toBe(false);
  });

  it('a compacted grant keeps its receipt and assignment; its pre-state and stop reason are history_compacted', () => {
    const full = replayLedger(bytes(fixture.history));
    const root = replayLedger(bytes(fixture.checkpoint));
    const dispatchId = fixture.history[2].operations[0].dispatch_id as string;
    expect(canonicalize(dispatchAssignment(root, dispatchId))).toBe(canonicalize(dispatchAssignment(full, dispatchId)));
    const { observed_tip: _a, ...before } = dispatchReceipt(full, 'request-grant');
    const { observed_tip: _b, ...after } = dispatchReceipt(root, 'request-grant');
    expect(after).toEqual({ ...before, limiting_reason: 'history_compacted' });
    expect(dispatchReceipt(root, 'request-grant', grantPlan(full, 'request-grant')).limiting_reason).toBe(before.limiting_reason);
    expect(codeOf(() => grantPlan(root, 'request-grant'))).toBe('history_compacted');
    expect(codeOf(() => projectionAt(root, 'grant', false))).toBe('history_compacted');
    expect(codeOf(() => projectionAt(root, 'no-such-commit'))).toBe('unknown_commit');
  });
});
