/**
 * Every write-side command example of the operator reference
 * (../shared/spec/work-queues-operator-reference.md, "Operator commands") run as Fairway's
 * equivalent through the real entry point on real local Git repositories, with its flags,
 * `--json` and its documented errors. One test per example, named after it (the read-side
 * examples: operator-reference.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dirCli, fixtureRepo, git, inputFiles, queueLedger, queueTip } from '../support/fixture-repo.ts';
import { operatorQueue, SDK_GRAPH } from '../support/operator-queue.ts';

const file = inputFiles('fairway-opref-w-in-');
const payload = file('work.json', { plan: 'p' });
const lines = (repo: string) => queueLedger(repo).text!.split('\n').map((l) => JSON.parse(l));

/** A direct Git write outside the protocol: the queue branch's next commit (or first, without `parent`) holding `text` as the ledger. */
function commitLedger(repo: string, text: string, parent: string | null): string {
  const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: text, encoding: 'utf8' }).trim();
  const tree = execFileSync('git', ['-C', repo, 'mktree'], { input: `100644 blob ${blob}\twork-queue.jsonl\n`, encoding: 'utf8' }).trim();
  const commit = git(repo, 'commit-tree', tree, ...(parent === null ? [] : ['-p', parent]), '-m', 'direct write');
  git(repo, 'update-ref', 'refs/heads/work-queue', commit);
  return commit;
}

/** A queue with one Work, cancelled: quiescent, so a Policy update may install. */
async function drainedQueue(prefix: string): Promise<string> {
  const repo = fixtureRepo(prefix);
  const sub = await dirCli(repo, '--json', 'submit-work', '--file', payload, '--node-key', 'only');
  expect(sub.code, sub.out).toBe(0);
  expect((await dirCli(repo, '--json', 'cancel-work', '--work-id', sub.json.work_ids[0], '--reason', 'drained')).code).toBe(0);
  return repo;
}

describe('operator reference: write commands', () => {
  it('submit-work --file work.json: default priority 3 and key ""; on an absent queue, Policy and Work in one commit', async () => {
    const repo = fixtureRepo('fairway-opref-submit-');
    const sub = await dirCli(repo, '--json', 'submit-work', '--file', payload);
    expect(sub.code, sub.out).toBe(0);
    expect(sub.json).toMatchObject({ ok: true, status: 'committed', bootstrap: true });
    const [genesis] = lines(repo);
    expect(lines(repo)).toHaveLength(1);
    expect(genesis.operations.map((o: { kind: string }) => o.kind)).toEqual(['Policy', 'Work']);
    const row = (await dirCli(repo, '--json', 'state')).json.rows.find((r: { kind: string }) => r.kind === 'work');
    expect(row).toMatchObject({ work_id: sub.json.work_ids[0], priority: 3, fairness_key: '' });
    const missing = await dirCli(repo, '--json', 'submit-work');
    expect([missing.code, missing.json.error.code]).toEqual([2, 'option_missing']);
  });

  it('submit-work --execution-ref IMMUTABLE_SHA: pins a registered revision; retries keep the pin, a pin change is rejected', async () => {
    const repo = fixtureRepo('fairway-opref-pin-');
    const sha = git(repo, 'rev-parse', 'main');
    const pinned = await dirCli(repo, '--json', '--request-id', 'pin-1', 'submit-work', '--file', payload, '--node-key', 'pinned', '--execution-ref', sha);
    expect(pinned.code, pinned.out).toBe(0);
    const work = lines(repo)[0].operations.find((o: { kind: string }) => o.kind === 'Work');
    expect(work.execution_ref).toBe(sha);
    const retry = await dirCli(repo, '--json', '--request-id', 'pin-1', 'submit-work', '--file', payload, '--node-key', 'pinned', '--execution-ref', sha);
    expect(retry.json.status).toBe('request_replayed');
    const changed = await dirCli(repo, '--json', '--request-id', 'pin-1', 'submit-work', '--file', payload, '--node-key', 'pinned', '--execution-ref', 'ab'.repeat(20));
    expect([changed.code, changed.json.error.code]).toEqual([3, 'request_id_conflict']);
    const unregistered = await dirCli(repo, '--json', 'submit-work', '--file', payload, '--node-key', 'other', '--execution-ref', 'ab'.repeat(20));
    expect([unregistered.code, unregistered.json.error.code]).toEqual([3, 'execution_ref_unregistered']);
    const short = await dirCli(repo, '--json', 'submit-work', '--file', payload, '--node-key', 'other', '--execution-ref', sha.slice(0, 7));
    expect([short.code, short.json.error.code]).toEqual([2, 'option_invalid']);
  });

  it('submit-graph: atomic, with issue and pull request dependency nodes; bootstraps an absent queue; a cycle writes nothing', async () => {
    const repo = fixtureRepo('fairway-opref-graph-');
    git(repo, 'remote', 'add', 'origin', 'https://github.com/octo-org/app.git'); // the gates' repository is the queue's
    const resource = (kind: string, id: string, number: string) => ({ kind, host: 'github.com', repository: 'octo-org/app', repository_id: '123', resource_id: id, number });
    const cycle = [{ node_key: 'a', payload: {}, depends_on: [{ kind: 'work', node_key: 'b' }] }, { node_key: 'b', payload: {}, depends_on: [{ kind: 'work', node_key: 'a' }] }];
    const refused = await dirCli(repo, '--json', 'submit-graph', '--file', file('cycle.json', cycle));
    expect([refused.code, refused.json.error.code, refused.json.error.details.cycle]).toEqual([3, 'dependency_cycle', ['a', 'b', 'a']]);
    expect(queueTip(repo)).toBeNull();
    const graph = [
      { node_key: 'impl', payload: { p: 1 }, depends_on: [{ kind: 'issue', condition: 'completed', resource: resource('issue', '456', '7') }] },
      { node_key: 'rel', payload: { p: 2 }, depends_on: [{ kind: 'work', node_key: 'impl' }, { kind: 'pull_request', condition: 'merged', resource: resource('pull_request', '457', '8') }] },
    ];
    const sub = await dirCli(repo, '--json', 'submit-graph', '--file', file('graph.json', graph), '--graph-id', 'gates');
    expect(sub.code, sub.out).toBe(0);
    expect([sub.json.bootstrap, sub.json.work_ids.length, lines(repo).length]).toEqual([true, 2, 1]);
    const rows = (await dirCli(repo, '--json', 'state')).json.rows.filter((r: { kind: string }) => r.kind === 'work');
    expect(rows.map((r: { readiness: string }) => r.readiness)).toEqual(['waiting', 'waiting']);
  });

  it('submit-graph: within size limits (256 operations a commit, so 255 nodes beside the genesis Policy and 256 after it; the payload_bytes limit); a graph over them writes nothing', async () => {
    const repo = fixtureRepo('fairway-opref-graph-limits-');
    const graph = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ node_key: `${prefix}${i}`, payload: {} }));
    const many = await dirCli(repo, '--json', 'submit-graph', '--file', file('many.json', graph(257, 'n')));
    expect([many.code, many.json.error.code, queueTip(repo)]).toEqual([3, 'input_invalid', null]);
    const big = await dirCli(repo, '--json', 'submit-graph', '--file', file('big.json', [{ node_key: 'big', payload: { text: 'x'.repeat(20_000) } }]));
    expect([big.code, big.json.error.code, big.json.error.details.limit, queueTip(repo)]).toEqual([3, 'resource_limit', 'payload_bytes', null]);
    // The bootstrap commit holds the Policy and every Work: 256 nodes are one operation too many, said so before anything is built.
    const genesis = await dirCli(repo, '--json', 'submit-graph', '--file', file('genesis.json', graph(256, 'n')));
    expect([genesis.code, genesis.json.error.code, genesis.json.error.details, queueTip(repo)]).toEqual([3, 'resource_limit', { limit: 'operations', max: 256, value: 257 }, null]);
    expect(genesis.json.error.message).toMatch(/at most 255 nodes/);
    const first = await dirCli(repo, '--json', 'submit-graph', '--file', file('first.json', graph(255, 'n')));
    expect([first.code, first.json.bootstrap, first.json.work_ids?.length]).toEqual([0, true, 255]);
    const more = await dirCli(repo, '--json', 'submit-graph', '--file', file('more.json', graph(256, 'm')));
    expect([more.code, more.json.work_ids?.length]).toEqual([0, 256]);
  });

  it('dispatch-next --pool POOL --max-claims N --max-dispatches N: commits fair assignments and reservations, no launch', async () => {
    const q = await operatorQueue('fairway-opref-dispatch-');
    const grant = await q.run('--json', 'dispatch-next', '--pool', 'default', '--max-claims', '1', '--max-dispatches', '1');
    expect(grant.code).toBe(0);
    expect(grant.json).toMatchObject({ status: 'reserved', granted_claims: 1, reserved_dispatches: 1, pool: 'default' });
    expect(grant.json.claims[0].work_id).toBe(q.work.x); // the oldest eligible Work
    expect(grant.json.dispatches[0]).toMatchObject({ status: 'reserved', run_id: null, released: false });
    const unknown = await q.run('--json', 'dispatch-next', '--pool', 'nope', '--max-claims', '1', '--max-dispatches', '1');
    expect([unknown.code, unknown.json.error.code]).toEqual([3, 'pool_invalid']);
    const zero = await q.run('--json', 'dispatch-next', '--pool', 'default', '--max-claims', '0', '--max-dispatches', '1');
    expect([zero.code, zero.json.error.code]).toEqual([2, 'option_invalid']);
  });

  it('control: pause admission and record a credential cutover; a paused admission refuses new Work and writes nothing', async () => {
    const q = await operatorQueue('fairway-opref-control-admission-');
    expect((await q.run('--json', 'control', '--name', 'admission_paused', '--paused', 'true', '--reason', 'incident')).code).toBe(0);
    const tip = queueTip(q.repo);
    const refused = await q.run('--json', 'submit-work', '--file', payload, '--node-key', 'late');
    expect([refused.code, refused.json.error.code, queueTip(q.repo)]).toEqual([3, 'admission_paused', tip]);
    const cutover = await q.run('--json', 'control', '--name', 'credential_generation', '--generation', 'gen-2', '--reason', 'rotation');
    expect([cutover.code, cutover.json.kind]).toEqual([0, 'control']);
    expect((await q.run('replay', '--json')).json.controls).toEqual({ admission_paused: true, grants_paused: false, credential_generation: 'gen-2' });
    const mixed = await q.run('--json', 'control', '--name', 'credential_generation', '--paused', 'true', '--reason', 'rotation');
    expect([mixed.code, mixed.json.error.code]).toEqual([2, 'option_invalid']);
  });

  it('control, cancel-work: pause grants and cancel Work without refunding charges or releasing a reservation', async () => {
    const q = await operatorQueue('fairway-opref-control-');
    const pause = await q.run('--json', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident');
    expect([pause.code, pause.json.kind]).toEqual([0, 'control']);
    const none = await q.run('--json', 'dispatch-next', '--pool', 'default', '--max-claims', '1', '--max-dispatches', '1');
    expect([none.json.status, none.json.limiting_reason]).toEqual(['no_grant', 'grants_paused']);
    const charges = (await q.run('replay', '--json')).json.fairness;
    const cancel = await q.run('--json', 'cancel-work', '--work-id', `${q.work.first},${q.work.x}`, '--reason', 'operator_cancelled');
    expect([cancel.code, cancel.json.kind]).toEqual([0, 'cancel_work']);
    expect((await q.run('replay', '--json')).json.fairness).toEqual(charges); // accounted service is not refunded
    const stats = await q.run('stats', '--json');
    expect(stats.json.pools[0]).toMatchObject({ native_outstanding: 2 }); // the reservation of first's group stays
    const again = await q.run('--json', 'cancel-work', '--work-id', q.work.x, '--reason', 'operator_cancelled');
    expect([again.code, again.json.error.code]).toEqual([3, 'work_terminal']);
    const noReason = await q.run('--json', 'control', '--name', 'grants_paused', '--paused', 'false');
    expect([noReason.code, noReason.json.error.code]).toEqual([2, 'option_missing']);
  });

  it('cancel-claim --claim-id ID[,ID...] --reason CODE: revokes exactly those Claims, cancels their Work, keeps reservations', async () => {
    const q = await operatorQueue('fairway-opref-cancel-claim-');
    const tip = queueTip(q.repo);
    const unknown = await q.run('--json', 'cancel-claim', '--claim-id', `${q.claims[0]},c_${'0'.repeat(64)}_1`, '--reason', 'operator_cancelled');
    expect([unknown.code, unknown.json.error.code, queueTip(q.repo)]).toEqual([3, 'unknown_claim', tip]); // all or nothing
    const charges = (await q.run('replay', '--json')).json.fairness;
    // Repeated selector flags, as well as comma-separated ids (operator-reference-github.test.ts).
    const cancel = await q.run('--json', 'cancel-claim', '--claim-id', q.claims[0]!, '--claim-id', q.claims[1]!, '--reason', 'operator_cancelled');
    expect([cancel.code, cancel.json.kind]).toEqual([0, 'cancel_work']);
    expect((await q.run('replay', '--json')).json.fairness).toEqual(charges);
    const replay = (await q.run('replay', '--json')).json;
    expect(replay.claims.map((c: { state: string }) => c.state)).toEqual(['cancelled', 'cancelled']);
    expect(replay.works.filter((w: { state: string }) => w.state === 'cancelled').map((w: { work_id: string }) => w.work_id).sort()).toEqual([q.work.first, q.work.code].sort());
    expect((await q.run('stats', '--json')).json.pools[0].native_outstanding).toBe(2);
    const again = await q.run('--json', 'cancel-claim', '--claim-id', q.claims[0]!, '--reason', 'operator_cancelled');
    expect([again.code, again.json.error.code]).toEqual([3, 'claim_terminal']);
    const badReason = await q.run('--json', 'cancel-claim', '--claim-id', q.claims[0]!, '--reason', 'not a code');
    expect([badReason.code, badReason.json.error.code]).toEqual([2, 'reason_invalid']);
  });

  it('reprioritize --work-id ID[,ID...] --priority 1..5 --reason CODE: a CAS override for future grants of available Work', async () => {
    const q = await operatorQueue('fairway-opref-priority-');
    const tip = queueTip(q.repo);
    const mixed = await q.run('--json', 'reprioritize', '--work-id', q.work.y, '--work-id', q.work.code, '--priority', '1', '--reason', 'urgent');
    expect([mixed.code, mixed.json.error.code, queueTip(q.repo)]).toEqual([3, 'work_not_available', tip]); // all or nothing: y is not changed either
    const before = (await q.run('replay', '--json')).json;
    const up = await q.run('--json', 'reprioritize', '--work-id', q.work.y, '--work-id', q.work.docs, '--priority', '1', '--reason', 'urgent');
    expect(up.code, up.out).toBe(0);
    const after = (await q.run('replay', '--json')).json;
    const positions = (p: { works: { work_id: string; enqueued: number }[] }) => p.works.map((w) => [w.work_id, w.enqueued]);
    expect([positions(after), after.fairness]).toEqual([positions(before), before.fairness]); // FIFO positions and charges stay
    const rows = (await q.run('state', '--json')).json.rows.filter((r: { kind: string }) => r.kind === 'work');
    const y = rows.find((r: { work_id: string }) => r.work_id === q.work.y);
    expect([y.priority, y.effective_priority]).toEqual([3, 1]); // the admitted definition is kept
    const next = await q.run('--json', 'dispatch-next', '--pool', 'default', '--max-claims', '1', '--max-dispatches', '1');
    expect(next.json.claims[0].work_id).toBe(q.work.y); // ahead of the older x
    const claimed = await q.run('--json', 'reprioritize', '--work-id', q.work.code, '--priority', '1', '--reason', 'urgent');
    expect([claimed.code, claimed.json.error.code]).toEqual([3, 'work_not_available']);
    for (const p of ['0', '6']) {
      const r = await q.run('--json', 'reprioritize', '--work-id', q.work.x, '--priority', p, '--reason', 'urgent');
      expect([r.code, r.json.error.code], p).toEqual([2, 'priority_invalid']);
    }
  });

  it('policy --file policy.json --epoch EPOCH: only on an existing quiescent queue; never seeds an absent one', async () => {
    const absent = fixtureRepo('fairway-opref-policy-absent-');
    const repo = await drainedQueue('fairway-opref-policy-');
    const installed = (await dirCli(repo, 'replay', '--json')).json.policy.policy;
    const policyFile = file('policy.json', { ...installed, class_weights: [9, 4, 2, 1, 1] });
    const seed = await dirCli(absent, '--json', 'policy', '--file', policyFile, '--epoch', 'epoch-2');
    expect([seed.code, seed.json.error.code, queueTip(absent)]).toEqual([3, 'queue_uninitialized', null]);
    const update = await dirCli(repo, '--json', 'policy', '--file', policyFile, '--epoch', 'epoch-2');
    expect([update.code, update.json.kind]).toEqual([0, 'policy']);
    expect((await dirCli(repo, 'replay', '--json')).json.policy).toMatchObject({ epoch: 'epoch-2', policy: { class_weights: [9, 4, 2, 1, 1] } });
    const busy = await operatorQueue('fairway-opref-policy-busy-');
    const refused = await busy.run('--json', 'policy', '--file', policyFile, '--epoch', 'epoch-2');
    expect([refused.code, refused.json.error.code]).toEqual([3, 'policy_not_quiescent']);
    // Every Work terminal, but the two granted groups' native reservations are still held: not quiescent.
    const all = Object.values(busy.work).join(',');
    expect((await busy.run('--json', 'cancel-work', '--work-id', all, '--reason', 'drained')).code).toBe(0);
    const tip = queueTip(busy.repo);
    const reserved = await busy.run('--json', 'policy', '--file', policyFile, '--epoch', 'epoch-2');
    expect([reserved.code, reserved.json.error.code, queueTip(busy.repo)]).toEqual([3, 'policy_not_quiescent', tip]);
    expect(reserved.json.error.message).toMatch(/unreleased native reservations/);
  });

  it('policy --from-config --epoch EPOCH: resolves aw.json and worker routes; mutually exclusive with --file', async () => {
    const repo = await drainedQueue('fairway-opref-from-config-');
    writeFileSync(join(repo, '.github', 'workflows', 'aw.json'), JSON.stringify({ work_queue: { concurrency: 4 } }));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'settings');
    const update = await dirCli(repo, '--json', 'policy', '--from-config', '--epoch', 'epoch-2');
    expect([update.code, update.json.kind]).toEqual([0, 'policy']);
    expect((await dirCli(repo, 'replay', '--json')).json.policy.policy.pools.default).toMatchObject({ logical_limit: 4, native_limit: 4 });
    const both = await dirCli(repo, '--json', 'policy', '--from-config', '--file', payload, '--epoch', 'epoch-3');
    expect([both.code, both.json.error.code]).toEqual([2, 'option_invalid']);
    const noEpoch = await dirCli(repo, '--json', 'policy', '--from-config');
    expect([noEpoch.code, noEpoch.json.error.code]).toEqual([2, 'option_missing']);
  });

  it('deploy --from-config [--pool POOL] [--worker-profile PROFILE]: moves the worker to the verified default revision without draining', async () => {
    const q = await operatorQueue('fairway-opref-deploy-');
    writeFileSync(join(q.repo, 'README.md'), 'a new default revision\n');
    git(q.repo, 'commit', '-q', '-am', 'change');
    const head = git(q.repo, 'rev-parse', 'main');
    const deploy = await q.run('--json', 'deploy', '--from-config', '--pool', 'default', '--worker-profile', 'default');
    expect(deploy.code, deploy.out).toBe(0);
    expect(deploy.json.deployments).toEqual([expect.objectContaining({ pool: 'default', worker_profile: 'default', status: 'deployed', to: head, available: true })]);
    expect((await q.run('stats', '--json')).json.pools[0]).toMatchObject({ claimed: 2, native_outstanding: 2 }); // nothing drained
    const unknownPool = await q.run('--json', 'deploy', '--from-config', '--pool', 'nope');
    expect([unknownPool.code, unknownPool.json.error.code]).toEqual([3, 'unknown_pool']);
    const unknownProfile = await q.run('--json', 'deploy', '--from-config', '--worker-profile', 'nope');
    expect([unknownProfile.code, unknownProfile.json.error.code]).toEqual([3, 'unknown_profile']);
    const bare = await q.run('--json', 'deploy');
    expect([bare.code, bare.json.error.code]).toEqual([2, 'option_missing']);
  });

  it('compact: one version-3 checkpoint keeping fairness accounting, ownership, reservations, bootstrap Work positions and request identities, also when repeated', async () => {
    const q = await operatorQueue('fairway-opref-compact-');
    /** What a checkpoint must carry over: everything but the log's own shape (tip, commits, which commits touched a Work). */
    const kept = async () => {
      const { claims, reservations, fairness, works, dispatch_groups: groups, requests } = (await q.run('replay', '--json')).json;
      return {
        claims, reservations, fairness, groups,
        positions: works.map((w: { work_id: string; enqueued: number; state: string; effective_priority: number }) => [w.work_id, w.enqueued, w.state, w.effective_priority]),
        requests: requests.filter((r: { kind: string }) => r.kind !== 'checkpoint').map((r: { request_id: string; fingerprint: string; commit_id: string }) => [r.request_id, r.fingerprint, r.commit_id]),
      };
    };
    const before = await kept();
    const compact = await q.run('--json', 'compact');
    expect(compact.json).toMatchObject({ ok: true, status: 'committed', replaced_commits: 3 });
    expect(lines(q.repo)).toHaveLength(1);
    expect(await kept()).toEqual(before);
    expect(before.positions[0]).toEqual([q.work.first, expect.any(Number), 'claimed', 3]); // the bootstrap Work keeps its place
    expect((await q.run('--json', 'compact')).json.status).toBe('already_compact');
    // More service after the checkpoint, then a second compaction of the checkpoint and what follows it.
    expect((await q.run('--json', '--request-id', 'ref-dispatch-2', 'dispatch-next', '--pool', 'default', '--max-claims', '1', '--max-dispatches', '1')).json.granted_claims).toBe(1);
    const served = await kept();
    expect(served.fairness).not.toEqual(before.fairness);
    expect((await q.run('--json', 'compact')).json).toMatchObject({ status: 'committed', replaced_commits: 2 });
    expect(lines(q.repo)).toHaveLength(1);
    expect(await kept()).toEqual(served);
    for (const [id, args] of [[q.submitRequest, ['submit-graph', '--file', file('retry.json', SDK_GRAPH), '--graph-id', 'sdk']], ['ref-dispatch-2', ['dispatch-next', '--pool', 'default', '--max-claims', '1', '--max-dispatches', '1']]] as const) {
      const retry = await q.run('--json', '--request-id', id, ...args);
      // The accepted request identity survives both compactions (a grant's answer says replayed).
      expect([retry.code, retry.json.status === 'request_replayed' || retry.json.replayed === true], id).toEqual([0, true]);
    }
    expect((await q.run('verify', '--json')).code).toBe(0);
  });

  it('access failures, malformed logs and unsupported versions are explicit errors; no command initializes Policy over an invalid log', async () => {
    const repo = fixtureRepo('fairway-opref-invalid-');
    expect((await dirCli(repo, '--json', 'submit-work', '--file', payload, '--node-key', 'only')).code).toBe(0);
    const policyFile = file('valid-policy.json', (await dirCli(repo, 'replay', '--json')).json.policy.policy);
    const commands = [
      ['replay'], ['state'], ['submit-work', '--file', payload, '--node-key', 'again'], ['submit-graph', '--file', file('g.json', SDK_GRAPH)],
      ['dispatch-next', '--pool', 'default', '--max-claims', '1', '--max-dispatches', '1'], ['cancel-work', '--work-id', 'abcdef01', '--reason', 'x'],
      ['policy', '--from-config', '--epoch', 'epoch-2'], ['policy', '--file', policyFile, '--epoch', 'epoch-2'], ['deploy', '--from-config'], ['compact'],
    ];
    const refusedAll = async (repo: string, code: string) => {
      const tip = queueTip(repo);
      for (const args of commands) {
        const r = await dirCli(repo, '--json', ...args);
        expect([r.code, r.json.error.code], args.join(' ')).toEqual([3, code]);
      }
      expect(queueTip(repo)).toBe(tip);
    };
    // An unsupported version on an existing queue.
    const older = `${queueLedger(repo).text!.replace('"version":3', '"version":2')}\n`;
    commitLedger(repo, older, queueTip(repo));
    await refusedAll(repo, 'unsupported_protocol');
    // A queue branch whose only log is malformed: it is not an absent queue to seed.
    const garbage = fixtureRepo('fairway-opref-garbage-');
    commitLedger(garbage, 'not json\n', null);
    await refusedAll(garbage, 'invalid_json');
    // A location that is not a Git repository.
    const nowhere = await dirCli(join(repo, 'no-such-dir'), '--json', 'submit-work', '--file', payload);
    expect([nowhere.code, nowhere.json.error.code]).toEqual([3, 'not_a_git_repository']);
  });

  it('direct claim --work-id is unsupported, and worker finish is no operator command: an operator cannot impersonate a worker; nothing is written', async () => {
    const q = await operatorQueue('fairway-opref-no-claim-');
    const tip = queueTip(q.repo);
    const claim = await q.run('--json', 'claim', '--work-id', q.work.x);
    expect([claim.code, claim.json.error.code]).toEqual([2, 'usage_error']);
    const groups = (await q.run('replay', '--json')).json.dispatch_groups;
    const finish = await q.run('--json', 'finish', '--dispatch-id', groups[0].dispatch_id, '--handle', 'h1', '--outcome', 'completed');
    expect([finish.code, finish.json.error.code]).toEqual([2, 'context_missing']); // only from a worker run's own job context
    expect(queueTip(q.repo)).toBe(tip);
    expect((await q.run('inspect', '--claim-id', q.claims[0]!, '--json')).json.state).toBe('open');
  });

  it('--branch NAME: a separate authoritative queue; the default queue is untouched', async () => {
    const q = await operatorQueue('fairway-opref-branch-');
    const tip = queueTip(q.repo);
    const other = await q.run('--json', '--branch', 'other-queue', 'state');
    expect([other.code, other.json.error.code]).toEqual([3, 'queue_uninitialized']);
    const sub = await q.run('--json', '--branch', 'other-queue', 'submit-work', '--file', payload, '--node-key', 'elsewhere');
    expect([sub.code, sub.json.bootstrap]).toEqual([0, true]);
    expect(queueTip(q.repo)).toBe(tip);
    expect((await q.run('--json', '--branch', 'other-queue', 'state')).json.total).toBe(2);
  });

  it('--branch NAME must differ from the default branch: a queue is never created on it (nothing written there)', async () => {
    const repo = fixtureRepo('fairway-opref-branch-main-');
    const main = git(repo, 'rev-parse', 'main');
    const sub = await dirCli(repo, '--json', '--branch', 'main', 'submit-work', '--file', payload);
    expect([sub.code, sub.json.error.code]).toEqual([3, 'worker_route_unavailable']);
    expect(sub.json.error.message).toMatch(/distinct from the queue branch/);
    expect([git(repo, 'rev-parse', 'main'), git(repo, 'ls-tree', '--name-only', 'main').split('\n')]).toEqual([main, ['.github', 'README.md']]);
  });
});

describe('administrator commands that would change nothing write nothing', () => {
  it('control to its current value and reprioritize to the priority every target has: unchanged, exit 0, no commit (as the console refuses them); a real change still commits', async () => {
    const q = await operatorQueue('fairway-opref-nochange-');
    const before = queueTip(q.repo);
    const already = await q.run('--json', 'control', '--name', 'grants_paused', '--paused', 'false', '--reason', 'incident');
    expect(already.code, already.out).toBe(0);
    expect(already.json).toMatchObject({ ok: true, status: 'unchanged', commit_id: null, kind: 'control', reason: 'grants_paused is already false; nothing to publish' });
    const same = await q.run('reprioritize', '--work-id', q.work.x, '--work-id', q.work.y, '--priority', '3', '--reason', 'triage');
    expect(same.code, same.out).toBe(0);
    expect(same.out).toContain('unchanged: every target already has priority 3; nothing to publish (nothing written)');
    expect(queueTip(q.repo)).toBe(before);
    // One target that differs is a change: it commits, and the target already there is rewritten to the same value.
    await q.run('--json', 'reprioritize', '--work-id', q.work.x, '--priority', '1', '--reason', 'triage');
    const mixed = await q.run('--json', 'reprioritize', '--work-id', q.work.x, '--work-id', q.work.y, '--priority', '1', '--reason', 'triage');
    expect(mixed.json).toMatchObject({ ok: true, status: 'committed' });
    expect(queueTip(q.repo)).not.toBe(before);
  });
});
