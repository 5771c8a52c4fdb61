/**
 * One readiness function beside eligibility (engine/scheduler/readiness.ts): the console's
 * work status, the CLI's state rows and JSON projection, and the MCP read rows answer from it.
 */
import { describe, expect, it } from 'vitest';
import { buildSmallQueue } from '../support/small-queue.ts';
import { replayBytes } from '../support/bytes.ts';
import { workReadiness as cliReadiness } from '../../cli/work-facts.ts';
import { workStatus } from '../../lib/console/views/status.ts';
import { eligibility } from '../../engine/scheduler/eligibility.ts';
import { workReadiness } from '../../engine/scheduler/readiness.ts';

describe('workReadiness', () => {
  const p = replayBytes(buildSmallQueue().ledger);
  const asOf = p.lastCommit!.at + 1;

  it('is the console\'s work status (the same function, not a copy)', () => {
    expect(workStatus).toBe(workReadiness);
  });

  it('answers available Work from eligibility, and ownership or delivery for the rest', () => {
    const seen = new Set<string>();
    for (const w of p.works()) {
      const r = workReadiness(p, w, asOf);
      seen.add(r.readiness);
      if (w.state === 'available') {
        const v = eligibility(p, w, asOf);
        expect(r).toEqual(v.eligible ? { readiness: 'ready', reason: 'ready', blockingPath: [] } : { readiness: 'waiting', reason: v.reason, blockingPath: v.blockingPath });
      } else if (w.state === 'completed') {
        expect(r.readiness).toBe(w.barrier === 'verified' ? 'done' : w.barrier === 'failed' ? 'failed' : 'delivering');
      } else {
        expect(r.readiness).toBe(w.state === 'claimed' ? 'running' : 'cancelled');
      }
    }
    expect([...seen].sort()).toEqual(['done', 'ready']);
  });

  it('the CLI views say the same in their documented words (docs/projection-json.md)', () => {
    for (const w of p.works()) {
      const r = workReadiness(p, w, asOf);
      const cli = cliReadiness(p, w, asOf);
      if (r.readiness === 'ready') expect(cli).toEqual({ readiness: 'ready', reason: null, blocking_path: [] });
      else if (r.readiness === 'waiting') expect(cli).toEqual({ readiness: 'waiting', reason: r.reason, blocking_path: r.blockingPath });
      else expect(cli.readiness).toBe(r.readiness === 'running' ? 'running' : 'terminal');
    }
  });
});
