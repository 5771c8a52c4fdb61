import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { candidateCommitId, checkpointRequestId, requestFingerprint } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { deploymentPlan } from '../lifecycle/deploy.ts';
import { commitOn } from '../requests/build.ts';
import { bootstrapRequest, submitRequest } from '../requests/operations.ts';
import { GENERATED_WORKER_REF, LedgerWriter, defaultPolicy } from '../requests/writer.ts';
import { parseQueueCommit, type Actor, type QueueCommit } from '../schema/index.ts';
import { planNext } from '../scheduler/plan.ts';
import { buildCheckpointCommit, canonicalLedger, checkpointSource, checkpointState, checkReplacedHistory, historyDigest, stateDigest } from './checkpoint.ts';
import { REPOSITORY, T0, comparableSummary, nextSelection, projectionOf, semantic, step } from '../../tests/support/checkpoint-ledgers.ts';
import { replayLedger, summarize } from './index.ts';
import { installedContract } from './ops/deployment.ts';
import { referenceSkip } from '../../tests/support/reference.ts';
import { replayBytes } from '../../tests/support/bytes.ts';

const fixtures = new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/', import.meta.url);
const generated = new URL('../../../shared/reference/gh-aw-generated/', import.meta.url);
const haveFixture = existsSync(new URL('checkpoint.json', fixtures));
const haveLedger = existsSync(new URL('ledger-1m.jsonl', generated));

const fixture = haveFixture ? JSON.parse(readFileSync(new URL('checkpoint.json', fixtures), 'utf8')) : null;
const lineOf = (c: unknown): string => `${canonicalize(c as JsonValue)}\n`;
const ledgerOf = (commits: readonly unknown[]): string => commits.map(lineOf).join('');

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
  return 'accepted';
}

/** A commit object with its request fingerprint recomputed after edits. */
function refingerprint<T extends { actor: JsonValue; request: { kind: string; parameters: JsonValue; fingerprint: string } }>(json: T): T {
  json.request.fingerprint = requestFingerprint(json.actor, json.request.kind, json.request.parameters);
  return json;
}

describe.skipIf(referenceSkip(haveFixture))('checkpoint.json (reference fixture)', () => {
  const history = haveFixture ? (fixture.history as unknown[]).map(parseQueueCommit) : [];
  const actor = haveFixture ? (fixture.checkpoint[0].actor as Actor) : null!;

  it('reproduces the expected checkpoint commit byte for byte from its history', () => {
    const projection = replayBytes(ledgerOf(fixture.history));
    const built = buildCheckpointCommit(projection, { priorGitSha: fixture.prior_git_sha, actor, at: fixture.checkpoint[0].at });
    expect(canonicalize(built as unknown as JsonValue)).toBe(canonicalize(fixture.checkpoint[0]));
    // The same from an explicit (state, history) source.
    const again = buildCheckpointCommit({ state: projection.state, history }, { priorGitSha: fixture.prior_git_sha, actor, at: fixture.checkpoint[0].at });
    expect(lineOf(again)).toBe(lineOf(built));
  });

  it('reproduces the genesis-only checkpoint (untouched clocks)', () => {
    const genesis = replayBytes(ledgerOf(fixture.history.slice(0, 1)));
    const built = buildCheckpointCommit(genesis, { priorGitSha: fixture.prior_git_sha, actor, at: 0 });
    expect(canonicalize(built as unknown as JsonValue)).toBe(canonicalize(fixture.genesis_checkpoint[0]));
  });

  it('recomputes both digests, the request id, the commit id and ledger_bytes', () => {
    for (const [commit, replaced] of [[fixture.checkpoint[0], history], [fixture.genesis_checkpoint[0], history.slice(0, 1)]] as const) {
      const op = commit.operations[0];
      expect(historyDigest(replaced)).toBe(op.history_sha256);
      expect(stateDigest(op.state)).toBe(op.state_sha256);
      expect(Buffer.byteLength(canonicalLedger(replaced))).toBe(op.state.ledger_bytes);
      expect(commit.request.id).toBe(checkpointRequestId(op.prior_tip, op.prior_git_sha));
      expect(commit.id).toBe(candidateCommitId(null, commit.request.id));
      expect(commit.request.parameters).toEqual({ prior_git_sha: op.prior_git_sha, prior_tip: op.prior_tip, history_sha256: op.history_sha256, state_sha256: op.state_sha256 });
    }
  });

  it('replaying the checkpoint root alone gives the summary and selection of the full history', () => {
    const full = replayBytes(ledgerOf(fixture.history));
    const root = replayBytes(ledgerOf(fixture.checkpoint));
    expect(comparableSummary(root)).toEqual(comparableSummary(full));
    expect(summarize(root)).toMatchObject({ tip: fixture.checkpoint[0].id, commits: 1, requests: 4 });
    expect(nextSelection(root.state, 100)).toEqual(nextSelection(full.state, 100));
    expect(semantic(root.state)).toEqual(semantic(full.state));
    expect(root.state.checkpoint?.ordinal).toBe(3);
    expect(root.state.commits[0]!.ordinal).toBe(3);
    for (const original of history) expect(root.request(original.request.id)?.fingerprint).toBe(original.request.fingerprint);
    const genesis = replayBytes(ledgerOf(fixture.genesis_checkpoint));
    expect(semantic(genesis.state)).toEqual(semantic(replayBytes(ledgerOf(fixture.history.slice(0, 1))).state));
  });

  it('extends a checkpoint exactly like the full history: same grant, old request ids stay committed', () => {
    const dispatcher = history[2]!.actor;
    const writers = [history, [parseQueueCommit(fixture.checkpoint[0])]].map((commits) => {
      const w = new LedgerWriter();
      for (const c of commits) w.lines.push(commitOn(w.state, c));
      return w;
    });
    const grants = writers.map((w) => w.dispatchNext('request-grant-2', dispatcher, 200, { pool: 'default', max_claims: 4, max_dispatches: 2, max_bytes: 49152 }).built.operations);
    expect(grants[1]).toEqual(grants[0]);
    expect(grants[0]!.map((op) => (op as { work_id: string }).work_id)).toEqual([(history[1]!.operations[1] as { work_id: string }).work_id]);
    expect(semantic(writers[1]!.state)).toEqual(semantic(writers[0]!.state));
    // A request id that the compacted prefix committed is still a duplicate.
    const reused = refingerprint(JSON.parse(canonicalize(fixture.history[1])));
    reused.previous = writers[1]!.state.tip;
    reused.id = candidateCommitId(reused.previous, 'request-submit');
    expect(codeOf(() => replayBytes(writers[1]!.text() + lineOf(reused)))).toBe('duplicate_request');
  });

  it('a tampered state fails its digest; a rehashed forged state fails restoration', () => {
    const tampered = JSON.parse(canonicalize(fixture.checkpoint[0]));
    const work = Object.values(tampered.operations[0].state.works)[1] as JsonObject;
    work.attempts = 2;
    expect(codeOf(() => replayBytes(lineOf(tampered)))).toBe('checkpoint_digest_mismatch');

    const forged = JSON.parse(canonicalize(fixture.checkpoint[0]));
    const op = forged.operations[0];
    (Object.values(op.state.claims)[0] as JsonObject).work_id = 'missing-work';
    op.state_sha256 = stateDigest(op.state);
    forged.request.parameters.state_sha256 = op.state_sha256;
    expect(codeOf(() => replayBytes(lineOf(refingerprint(forged))))).toBe('checkpoint_invalid');

    const mismatched = JSON.parse(canonicalize(fixture.checkpoint[0]));
    mismatched.request.parameters.prior_tip = 'submit';
    expect(codeOf(() => replayBytes(lineOf(refingerprint(mismatched))))).toBe('parameters_mismatch');

    const unsigned = JSON.parse(canonicalize(fixture.checkpoint[0]));
    unsigned.actor = { ...unsigned.actor, role: 'producer' };
    expect(codeOf(() => replayBytes(lineOf(refingerprint(unsigned))))).toBe('role_not_allowed');
  });

  it('the reference checkpoint is the state of the history it replaced; a self-consistent resealed state is checkpoint_state_mismatch, another history checkpoint_history_mismatch', () => {
    const prior = replayBytes(ledgerOf(fixture.history));
    const root = parseQueueCommit(fixture.checkpoint[0]);
    expect(codeOf(() => checkReplacedHistory(root, prior))).toBe('accepted');
    // Grants paused in the checkpoint but not in the history: replay accepts it (nothing contradicts it).
    const forged = JSON.parse(canonicalize(fixture.checkpoint[0]));
    const op = forged.operations[0];
    op.state.grants_paused = !op.state.grants_paused;
    op.state_sha256 = stateDigest(op.state);
    forged.request.parameters.state_sha256 = op.state_sha256;
    expect(codeOf(() => replayBytes(lineOf(refingerprint(forged))))).toBe('accepted');
    expect(codeOf(() => checkReplacedHistory(parseQueueCommit(forged), prior))).toBe('checkpoint_state_mismatch');
    expect(codeOf(() => checkReplacedHistory(root, replayBytes(ledgerOf(fixture.history.slice(0, 2)))))).toBe('checkpoint_history_mismatch');
  });

  it('rejects a checkpoint whose dispatch members are not the assignment of their Work (checkpoint_invalid): launch rebuilds assignments from them', () => {
    const forge = (edit: (dispatch: JsonObject) => void): string => {
      const forged = JSON.parse(canonicalize(fixture.checkpoint[0]));
      const op = forged.operations[0];
      edit(Object.values(op.state.dispatches)[0] as JsonObject);
      op.state_sha256 = stateDigest(op.state);
      forged.request.parameters.state_sha256 = op.state_sha256;
      return lineOf(refingerprint(forged));
    };
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(codeOf(() => replayLedger(bytes(forge(() => undefined))))).toBe('accepted');
    const payload = forge((d) => { ((d.claims as JsonObject[])[0]!).work = { task: 'not a' }; });
    expect(codeOf(() => replayLedger(bytes(payload)))).toBe('checkpoint_invalid');
    const refs = forge((d) => { ((d.claims as JsonObject[])[0]!).result_refs = [{ work_id: 'x', result_commit_id: 'y', descriptor: {} }]; });
    expect(codeOf(() => replayLedger(bytes(refs)))).toBe('checkpoint_invalid');
    const handle = forge((d) => { ((d.claims as JsonObject[])[0]!).handle = 'h2'; });
    expect(codeOf(() => replayLedger(bytes(handle)))).toBe('checkpoint_invalid');
  });

  it('rejects a Checkpoint anywhere but the root', () => {
    const late = JSON.parse(canonicalize(fixture.checkpoint[0]));
    late.previous = 'grant';
    late.id = candidateCommitId('grant', late.request.id);
    expect(codeOf(() => replayBytes(ledgerOf(fixture.history) + lineOf(late)))).toBe('checkpoint_position');
    // Nor inside another request kind, at the root or later.
    const smuggled = JSON.parse(canonicalize(fixture.history[0]));
    smuggled.operations = [fixture.checkpoint[0].operations[0]];
    expect(codeOf(() => replayBytes(lineOf(refingerprint(smuggled))))).toBe('genesis_invalid');
    expect(codeOf(() => buildCheckpointCommit(replayBytes(ledgerOf(fixture.history)), { priorGitSha: 'x', actor, at: 100 }))).toBe('checkpoint_invalid');
    expect(codeOf(() => buildCheckpointCommit(replayBytes(ledgerOf(fixture.history)), { priorGitSha: fixture.prior_git_sha, actor, at: 5 }))).toBe('checkpoint_invalid');
  });
});

/** Re-chains `tail` onto `tip`: new ids, renamed completion references, fresh fingerprints. */
function rebase(tail: readonly QueueCommit[], tip: string): string[] {
  const renamed = new Map<string, string>();
  const fix = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(fix);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'completion_id' && renamed.has(x as string) ? renamed.get(x as string) : fix(x)]));
  };
  let previous = tip;
  return tail.map((c) => {
    const json = JSON.parse(canonicalize(c as unknown as JsonValue));
    json.operations = fix(json.operations);
    json.request.parameters = fix(json.request.parameters);
    json.previous = previous;
    json.id = candidateCommitId(previous, json.request.id);
    renamed.set(c.id, json.id);
    previous = json.id;
    return lineOf(refingerprint(json));
  });
}

describe.skipIf(referenceSkip(haveLedger))('reference ledger-1m: compacted and uncompacted ledgers agree', () => {
  const text = haveLedger ? readFileSync(new URL('ledger-1m.jsonl', generated), 'utf8') : '';
  const full = haveLedger ? replayBytes(text) : null!;
  const { history } = haveLedger ? checkpointSource(full) : { history: [] };
  const admin: Actor = { role: 'administrator', principal: '1001', repository: 'owner/repo' };
  const checkpointAt = (k: number, sha = 'c'.repeat(40)) => {
    const prefix = replayBytes(ledgerOf(history.slice(0, k)));
    return { prefix, root: buildCheckpointCommit(prefix, { priorGitSha: sha, actor: admin, at: history[k - 1]!.at }) };
  };

  it.each([1, 2, 57, 180, 333, 571, 572])('cut after %i commits: the root restores the prefix exactly, the rebased tail replays identically', (k) => {
    const { prefix, root } = checkpointAt(k);
    const restored = replayBytes(lineOf(root));
    expect(semantic(restored.state)).toEqual(semantic(prefix.state));
    expect(comparableSummary(restored)).toEqual(comparableSummary(prefix));
    expect(nextSelection(restored.state, history[k - 1]!.at)).toEqual(nextSelection(prefix.state, history[k - 1]!.at));
    // Lossless: re-checkpointing the restored state changes only what the new root itself adds.
    const before = (root.operations[0] as { state: JsonObject }).state;
    const after = checkpointState(restored.state, [root]);
    const strip = (s: JsonObject): JsonObject => {
      const copy: JsonObject = { ...s, stats: { ...(s.stats as JsonObject), transactions: 0 } };
      for (const key of ['tip', 'requests', 'ledger_bytes', 'last_at']) delete copy[key];
      return copy;
    };
    expect(strip(after)).toEqual(strip(before));
    expect((after.requests as JsonValue[]).slice(0, k)).toEqual(before.requests);
    expect((after.requests as JsonObject[])[k]).toMatchObject({ id: root.id, kind: 'checkpoint', claims: [] });
    // Every rebased grant must be the compacted ledger's own fair selection, or replay fails.
    const compacted = replayBytes(lineOf(root) + rebase(history.slice(k), root.id).join(''));
    expect(semantic(compacted.state)).toEqual(semantic(full.state));
    expect(comparableSummary(compacted)).toEqual(comparableSummary(full));
    const end = history[history.length - 1]!.at;
    expect(nextSelection(compacted.state, end)).toEqual(nextSelection(full.state, end));
    expect(compacted.state.commits.at(-1)!.ordinal).toBe(history.length);
  });

  it('nested checkpoints carry the earlier receipts forward', () => {
    const { root } = checkpointAt(200);
    const once = replayBytes(lineOf(root) + rebase(history.slice(200), root.id).join(''));
    const onceHistory = checkpointSource(once).history;
    const prefix = replayBytes(ledgerOf(onceHistory.slice(0, 150)));
    const second = buildCheckpointCommit(prefix, { priorGitSha: 'd'.repeat(64), actor: admin, at: onceHistory[149]!.at });
    expect(((second.operations[0] as { state: JsonObject }).state.requests as JsonValue[]).length).toBe(350);
    const twice = replayBytes(lineOf(second) + rebase(onceHistory.slice(150), second.id).join(''));
    expect(semantic(twice.state)).toEqual(semantic(full.state));
    expect(twice.state.requests.size).toBe(full.state.requests.size + 2);
    expect(planNext(twice.state, 'default', 1).selected).toBe(planNext(full.state, 'default', 1).selected);
  });
});

describe('compacted and uncompacted ledgers give identical future selections (in-memory writer)', () => {
  const admin: Actor = { role: 'administrator', principal: '1001', repository: REPOSITORY };
  const producer: Actor = { ...admin, role: 'producer' };

  const busyPolicy = (mode = 'weighted-priority') =>
    defaultPolicy({ repository: REPOSITORY, principal: '1001', weights: { alpha: 1, beta: 2, gamma: 3 }, logicalLimit: 8, nativeLimit: 4, maxClaims: 2, mode });

  function bootstrap(policy = busyPolicy()): LedgerWriter {
    const w = new LedgerWriter();
    w.publish('bootstrap', producer, T0 - 1000, bootstrapRequest(policy, 'epoch-1', [{ node_key: 'seed', payload: { seed: true } }], { graphId: 'seed', at: T0 - 1000 }));
    return w;
  }

  /** A new writer whose ledger is one checkpoint root replacing `w`'s ledger. */
  function compact(w: LedgerWriter, priorGitSha: string, at: number): LedgerWriter {
    const history = w.lines.map((line) => parseQueueCommit(JSON.parse(line)));
    const root = buildCheckpointCommit({ state: w.state, history }, { priorGitSha, actor: admin, at });
    const compacted = new LedgerWriter();
    compacted.lines.push(commitOn(compacted.state, root));
    return compacted;
  }

  it.each([
    { cut: 4, nestAt: null, mode: 'weighted-priority' },
    { cut: 23, nestAt: 50, mode: 'weighted-priority' },
    { cut: 41, nestAt: 17, mode: 'weighted-priority' },
    { cut: 13, nestAt: 30, mode: 'strict-priority' },
  ])('$mode: checkpoint after $cut steps (nested one after grant $nestAt), then 100 more grants on both', ({ cut, nestAt, mode }) => {
    const full = bootstrap(busyPolicy(mode));
    for (let i = 0; i < cut; i++) step(full, i);
    let compacted = compact(full, 'e'.repeat(40), T0 + cut * 60_000);
    expect(semantic(compacted.state)).toEqual(semantic(full.state));
    let grants = 0;
    for (let i = cut; grants < 100; i++) {
      expect(i, 'the scenario keeps granting').toBeLessThan(cut + 400);
      const expected = step(full, i);
      expect(step(compacted, i), `step ${i}`).toEqual(expected);
      expect(comparableSummary(projectionOf(compacted.state))).toEqual(comparableSummary(projectionOf(full.state)));
      if (expected.length > 0) grants += 1;
      if (grants === nestAt && expected.length > 0) compacted = compact(compacted, 'f'.repeat(64), T0 + (i + 1) * 60_000);
    }
    expect(semantic(compacted.state)).toEqual(semantic(full.state));
    expect(nextSelection(compacted.state, T0 + 10_000_000)).toEqual(nextSelection(full.state, T0 + 10_000_000));
    const cold = replayBytes(compacted.text());
    expect(semantic(cold.state)).toEqual(semantic(full.state));
    expect(summarize(cold).requests).toBe(full.state.requests.size + (nestAt === null ? 1 : 2));
    const barriers = [...full.state.works.values()].map((w) => w.barrier);
    expect(barriers).toContain('failed');
    expect(barriers).toContain('verified');
    expect([...full.state.claims.values()].some((c) => c.state === 'cancelled')).toBe(true);
  });

  it('carries Deployment availability and backing-Issue links (Fairway extensions, omitted when empty)', () => {
    const policy = defaultPolicy({ repository: REPOSITORY, principal: '1001' });
    const profiles = (policy.pools as Record<string, JsonObject>).default!.profiles as Record<string, JsonObject>;
    profiles.gpu = { ...profiles.default!, trust_domain: 'gpu' };
    const w = bootstrap(policy);
    const submit = submitRequest(w.state, [{ node_key: 'cpu-1', payload: {} }, { node_key: 'gpu-1', payload: {}, worker_profile: 'gpu', priority: 1 }], { graphId: 'mixed', at: T0 });
    const [cpu, gpu] = submit.operations.map((op) => (op as { work_id: string }).work_id);
    const issue = { kind: 'issue', host: 'github.com', repository: REPOSITORY, repository_id: '11', resource_id: '77', number: '3' };
    // Parameters bind only the Work nodes; the link rides along (a new array: nodes shares the old one).
    submit.operations = [...submit.operations, { kind: 'IssueLink', work_id: cpu, resource: issue, projector_ref: 'a'.repeat(40) } as never];
    w.publish('submit-mixed', producer, T0, submit);
    // The writer `fairway deploy` uses: a CAS on the route's current ref and contract.
    const deployment = (writer: LedgerWriter, available: boolean) => {
      const plan = deploymentPlan(writer.state, { pool: 'default', workerProfile: 'gpu', ref: GENERATED_WORKER_REF, available, reason: available ? 'restore' : 'drain' });
      if (!plan.changed) throw new Error('the availability changes');
      return plan.request;
    };
    w.publish('drain-gpu', admin, T0 + 1, deployment(w, false));
    const compacted = compact(w, 'e'.repeat(40), T0 + 2);
    const state = (JSON.parse(compacted.lines[0]!).operations[0] as { state: JsonObject }).state;
    expect(state.deployments).toEqual({
      default: { gpu: { current_ref: GENERATED_WORKER_REF, revisions: { [GENERATED_WORKER_REF]: { available: false, contract: installedContract(profiles.gpu!), profile: profiles.gpu! } } } },
    });
    expect(Object.keys(state.issue_links as JsonObject)).toEqual([cpu]);
    expect(semantic(compacted.state)).toEqual(semantic(w.state));
    expect((nextSelection(compacted.state, T0 + 3) as JsonObject).work).not.toBe(gpu);
    expect(nextSelection(compacted.state, T0 + 3)).toEqual(nextSelection(w.state, T0 + 3));
    for (const writer of [w, compacted]) writer.publish('restore-gpu', admin, T0 + 4, deployment(writer, true));
    expect(nextSelection(compacted.state, T0 + 5)).toEqual({ work: gpu, observations: [] });
    expect(nextSelection(w.state, T0 + 5)).toEqual({ work: gpu, observations: [] });
    expect(semantic(compacted.state)).toEqual(semantic(w.state));
    // The link stays immutable across the checkpoint (this leaves both states half-applied: last).
    for (const writer of [w, compacted]) {
      const again = submitRequest(writer.state, [{ node_key: 'cpu-2', payload: {} }], { graphId: 'mixed', at: T0 + 6 });
      again.operations = [...again.operations, { kind: 'IssueLink', work_id: cpu, resource: { ...issue, resource_id: '78', number: '4' }, projector_ref: 'a'.repeat(40) } as never];
      expect(codeOf(() => writer.publish('relink', producer, T0 + 6, again))).toBe('issue_link_immutable');
    }
  });
});
