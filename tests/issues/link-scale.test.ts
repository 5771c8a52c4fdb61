/**
 * Linking Issues costs the same per link however many Issues are already linked: one Work per
 * Issue is checked against `state.linkedIssues` (replay/ops/backing-issue.ts), not by walking
 * every recorded link, so replaying 1,200 IssueLinks is linear, not quadratic.
 *
 * Measured as CPU time of appending the link commits (bytes through the real framing) to a
 * replayed prefix of the same Works, at 250 and 1,200 links, interleaved, best of five. Walking
 * every recorded link made the per-link cost grow with the links already recorded (85 us/link at
 * 250 links, 349 at 1,000: 4.1x, before the index, so about 5x at 1,200; 1,200 Works is about what the default envelope admits with their lifecycle reserve; about 7-10 us/link at
 * every size after). The 3x bound leaves room for a loaded machine (the suite's parallel files
 * pushed a 1,000/250 ratio to 1.85 once) and still fails a quadratic walk by a wide margin.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import { operationsRequest, submitRequest } from '../../engine/requests/operations.ts';
import type { QueueOperation } from '../../engine/schema/index.ts';
import { producer, reconciler, REPOSITORY, TestQueue } from '../acceptance/queue.ts';
import { appendBytes, replayBytes } from '../support/bytes.ts';
import { issueIn, policyWith } from './rules.ts';

const BATCH = 200;

/** `n` Works, then one IssueLink each (to a distinct Issue): the Work prefix and the link commits. */
function linkLedger(n: number): { prefix: string; links: string } {
  const q = new TestQueue(policyWith([]), [{ node_key: 'seed', payload: {} }]);
  const ids: string[] = [];
  for (let g = 0; g * BATCH < n; g++) {
    const nodes = Array.from({ length: Math.min(BATCH, n - g * BATCH) }, (_, i) => ({ node_key: `n${g}_${i}`, payload: {} }));
    q.w.publish(`submit-${g}`, producer, q.tick(), submitRequest(q.state, nodes, { graphId: `g${g}`, at: q.t }));
    ids.push(...q.state.graphs.get(`g${g}`)!);
  }
  const prefix = q.text();
  for (let b = 0; b * BATCH < ids.length; b++) {
    const ops = ids.slice(b * BATCH, (b + 1) * BATCH).map((w, i) => ({ kind: 'IssueLink', work_id: w, resource: issueIn(REPOSITORY, b * BATCH + i + 1), projector_ref: 'a'.repeat(40) }) as JsonObject);
    q.w.publish(`link-${b}`, reconciler, q.tick(), operationsRequest('observe', ops as unknown as QueueOperation[]));
  }
  return { prefix, links: q.text().slice(prefix.length) };
}

function cpuMs(f: () => void): number {
  const start = process.cpuUsage();
  f();
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

describe('IssueLink replay scales linearly', () => {
  it('the per-link replay cost at 1,200 links stays within 3x of the cost at 250 links', () => {
    const sizes = [250, 1200];
    const ledgers = sizes.map(linkLedger);
    const best = sizes.map(() => Infinity);
    for (let round = 0; round < 5; round++) {
      ledgers.forEach(({ prefix, links }, i) => {
        const projection = replayBytes(prefix);
        best[i] = Math.min(best[i]!, cpuMs(() => appendBytes(projection, links)));
        expect(projection.state.linkedIssues.size).toBe(sizes[i]);
      });
    }
    const perLink = best.map((ms, i) => (ms * 1000) / sizes[i]!);
    console.log(`IssueLink replay: ${perLink.map((us, i) => `${sizes[i]} links ${us.toFixed(0)} us/link`).join(', ')}; ratio ${(perLink[1]! / perLink[0]!).toFixed(2)}`);
    expect(perLink[1]! / perLink[0]!).toBeLessThan(3);
  }, 120_000);
});
