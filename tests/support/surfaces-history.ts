/**
 * The surface comparisons of fairness figures and receipts (tests/acceptance/surfaces-agree.test.ts):
 * the console's `/fairness` and `/receipts/[id]` views against what the CLI prints of the same
 * queue (`replay --json` clocks, `stats` backlog, `explain` candidates and historical
 * explanations) and what the MCP explain tool says of each Claim.
 */
import { expect } from 'vitest';
import type { Projection } from '../../engine/replay/index.ts';
import type { ConsoleRuntime } from '../../lib/console/runtime.ts';
import { fairnessView } from '../../lib/console/views/fairness.ts';
import { receiptView } from '../../lib/console/views/receipt.ts';
import { ledgerHolding } from '../../lib/publisher/history.ts';
import { fairway, fairwayOrCode, type McpSession } from './surfaces.ts';

interface CandidateView {
  member: string;
  stride: string;
}

/**
 * The console's fairness table of every pool (all grants: window 0) at `at` (null: live), against
 * the CLI on `source` at the same decision time: each class's and key's pass (`replay --json`
 * fairness clocks), weight and stride, backlog and eligible Work (`stats`), the eligible classes
 * and keys (`explain --pool` candidates, when something is selected) and grants per class and key
 * (`replay --json` Claims), and the grants owed and deficits over the decisions it re-derives,
 * recomputed from the CLI's historical explanation of each grant. Returns the decisions compared.
 */
export async function fairnessAgreement(runtime: ConsoleRuntime, at: string | null, source: string[]): Promise<number> {
  const view = await runtime.view(at);
  const { projection: p, asOf } = view;
  const replay = await fairway(asOf, ...source, 'replay');
  const stats = await fairway(asOf, ...source, 'stats');
  const f = replay.fairness;
  const where = (what: string) => `${at ?? 'live'}: ${what}`;
  let compared = 0;
  for (const pool of p.poolNames) {
    const v = fairnessView(p, asOf, pool, 0)!;
    const clocks = f.pools[pool];
    const poolStats = stats.pools.find((s: { pool: string }) => s.pool === pool);
    const explain = await fairway(asOf, ...source, 'explain', '--pool', pool, '--as-of', String(asOf));
    const pools = new Map(replay.dispatch_groups.map((d: { dispatch_id: string; pool: string }) => [d.dispatch_id, d.pool]));
    const grants = new Map<string, number>();
    for (const c of replay.claims as Array<{ dispatch_id: string; priority: number; fairness_key: string }>) {
      if (pools.get(c.dispatch_id) !== pool) continue;
      for (const id of [String(c.priority), `${c.priority}/${c.fairness_key}`]) grants.set(id, (grants.get(id) ?? 0) + 1);
    }
    expect(v.totalGrants, where('grants')).toBe([...grants].filter(([id]) => !id.includes('/')).reduce((n, [, g]) => n + g, 0));
    expect(v.mode).toBe(f.mode);
    expect(v.classScale).toBe(f.class_scale);
    expect(v.keyScale).toBe(f.key_scale);
    const eligibleClasses: string[] = [];
    let eligibleWork = 0;
    const backlog: Array<[number, string, number]> = [];
    for (const c of v.classes) {
      expect(c.pass, where(`class ${c.priority} pass`)).toBe(clocks?.classes.pass[String(c.priority)] ?? null);
      expect(c.weight, where(`class ${c.priority} weight`)).toBe(f.class_weights[c.priority - 1]);
      expect(c.stride, where(`class ${c.priority} stride`)).toBe(f.class_strides[c.priority - 1]);
      expect(c.grants, where(`class ${c.priority} grants`)).toBe(grants.get(String(c.priority)) ?? 0);
      if (c.targetShare !== null) eligibleClasses.push(String(c.priority));
      for (const k of c.keys) {
        expect(k.pass, where(`key ${c.priority}/${k.key} pass`)).toBe(clocks?.keys[String(c.priority)]?.pass[k.key] ?? null);
        expect(k.weight, where(`key ${k.key} weight`)).toBe(f.key_weights[k.key] ?? 1);
        expect(k.stride, where(`key ${k.key} stride`)).toBe(f.key_strides[k.key] ?? f.key_scale);
        expect(k.grants, where(`key ${c.priority}/${k.key} grants`)).toBe(grants.get(`${c.priority}/${k.key}`) ?? 0);
        eligibleWork += k.eligibleWork;
        if (k.backlog > 0) backlog.push([c.priority, k.key, k.backlog]);
      }
    }
    expect(backlog, where('backlog by class and key')).toEqual((poolStats?.backlog ?? []).map((b: { priority: number; fairness_key: string; available: number }) => [b.priority, b.fairness_key, b.available]));
    expect(eligibleWork, where('eligible Work')).toBe(poolStats?.eligible ?? 0);
    // Owed grants and deficits over the decisions the console re-derives (grants whose commit the
    // ledger retains), from the CLI's historical explanation of each: the classes and keys its
    // selection compared, with the Policy's weights.
    const owed = new Map<string, number>();
    const received = new Map<string, number>();
    let decisions = 0;
    for (const r of p.requests()) {
      if (r.kind !== 'dispatch_next' || p.commitText(r.commitId) === undefined || r.claimIds.length === 0) continue;
      const x = await fairway(asOf, ...source, '--request-id', r.requestId, 'explain');
      if (pools.get(x.groups[0].dispatch_id) !== pool) continue;
      for (const c of x.claims as Array<{ explanation: { class: { candidates: CandidateView[] } | null; key: { priority: number; candidates: CandidateView[] }; work: { fairness_key: string } } }>) {
        const e = c.explanation;
        decisions++;
        const classes = e.class === null ? [String(e.key.priority)] : e.class.candidates.map((m) => m.member);
        const keys = e.key.candidates.map((m) => m.member);
        const cw = (m: string) => f.class_weights[Number(m) - 1] as number;
        const kw = (m: string) => (f.key_weights[m] ?? 1) as number;
        const classTotal = classes.reduce((n, m) => n + cw(m), 0);
        const keyTotal = keys.reduce((n, m) => n + kw(m), 0);
        for (const m of classes) owed.set(m, (owed.get(m) ?? 0) + cw(m) / classTotal);
        for (const m of keys) owed.set(`${e.key.priority}/${m}`, (owed.get(`${e.key.priority}/${m}`) ?? 0) + kw(m) / keyTotal);
        for (const id of [String(e.key.priority), `${e.key.priority}/${e.work.fairness_key}`]) received.set(id, (received.get(id) ?? 0) + 1);
      }
    }
    expect(v.windowDecisions, where('decisions the owed sums cover')).toBe(decisions);
    compared += decisions;
    const close = (a: number | null, b: number | undefined, what: string) => {
      if (b === undefined) expect(a, where(what)).toBeNull();
      else expect(a, where(what)).toBeCloseTo(b, 9);
    };
    for (const c of v.classes) {
      const id = String(c.priority);
      close(c.owed, owed.get(id), `class ${id} owed`);
      close(c.deficit, owed.has(id) ? owed.get(id)! - (received.get(id) ?? 0) : undefined, `class ${id} deficit`);
      for (const k of c.keys) {
        const kid = `${c.priority}/${k.key}`;
        close(k.owed, owed.get(kid), `key ${kid} owed`);
        close(k.deficit, owed.has(kid) ? owed.get(kid)! - (received.get(kid) ?? 0) : undefined, `key ${kid} deficit`);
      }
    }
    if (explain.outcome === 'selected') {
      // The classes and keys the table gives a target share are the ones the selection compared.
      const members = (level: { candidates: CandidateView[] }) => level.candidates.map((m) => m.member).sort();
      if (explain.class !== null) expect(eligibleClasses.sort(), where('eligible classes')).toEqual(members(explain.class));
      const klass = v.classes.find((c) => c.priority === explain.key.priority)!;
      expect(klass.keys.filter((k) => k.targetShare !== null).map((k) => k.key).sort(), where('eligible keys')).toEqual(members(explain.key));
      for (const m of explain.key.candidates as CandidateView[]) expect(klass.keys.find((k) => k.key === m.member)?.stride).toBe(m.stride);
    } else {
      expect(eligibleClasses, where(`eligible classes with no grant (${explain.reason})`)).toEqual([]);
    }
  }
  return compared;
}

/**
 * Every committed request of `live` (every grant, and every `sampleEvery`-th other request):
 * `explain --request-id R` against the console receipt (through the checkpoint's prior Git commit
 * when compacted, as the receipt page reads it), and each retained grant's Claims against the MCP
 * explain tool. Returns the number of requests compared.
 */
export async function receiptAgreement(runtime: ConsoleRuntime, live: Projection, source: string[], mcp: McpSession, sampleEvery = 1): Promise<number> {
  let compared = 0;
  let i = 0;
  for (const request of live.requests()) {
    if (request.kind !== 'dispatch_next' && i++ % sampleEvery !== 0) continue;
    const id = request.requestId;
    const history = live.commitText(request.commitId) !== undefined ? null : await ledgerHolding(runtime.store, live, request.commitId).catch(() => null);
    const receipt = receiptView(live, id, 'github.com', history)!;
    const cli = await fairwayOrCode(0, ...source, '--request-id', id, 'explain');
    expect(cli.code, `${id}: ${JSON.stringify(cli.json)}`).toBe(0);
    const x = cli.json;
    expect([x.request_id, x.commit_id, x.as_of], id).toEqual([receipt.requestId, receipt.commitId, receipt.at]);
    if (request.kind === 'dispatch_next') {
      expect(x.claims.map((c: { explanation: unknown }) => c.explanation), `${id} explanations`).toEqual(receipt.explanations);
      expect(x.claims.map((c: { claim_id: string }) => c.claim_id), `${id} Claims`).toEqual(receipt.dispatch!.claims.map((c) => c.claim_id));
      expect(x.stop_reason, `${id} stop reason`).toBe(receipt.stop!.reason);
      expect(x.groups.map((g: { dispatch_id: string }) => g.dispatch_id), `${id} groups`).toEqual(receipt.dispatch!.dispatches.map((g) => g.dispatch_id));
      for (const c of x.claims as Array<{ claim_id: string; explanation: unknown }>) {
        const m = await mcp.call('work_queue_explain', { claim_id: c.claim_id });
        // The activation snapshot carries the ledger, not its Git history: a compacted grant is history_compacted there.
        if (history !== null) expect(m.error.code).toBe('history_compacted');
        else expect(m.explanation, `${id} ${c.claim_id} on MCP`).toEqual(c.explanation);
      }
    } else {
      expect(x.kind, id).toBe(receipt.kind);
      expect(x.operations.map((o: { kind: string }) => o.kind), `${id} operations`).toEqual(receipt.operations.map((o) => o.kind));
    }
    compared++;
  }
  return compared;
}
