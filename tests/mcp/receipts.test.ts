/**
 * The job-summary receipt (spec 7.13 "Always escape submitted identifiers/text"):
 * a few lines, every agent-influenced string escaped, counts per status.
 */
import { describe, expect, it } from 'vitest';
import { countStatuses, md, renderSummary, type IntentReceipt, type ProcessReport } from '../../lib/intents/receipts.ts';

describe('processing summary', () => {
  it('escapes submitted text and reports counts per status', () => {
    const receipts: IntentReceipt[] = [
      { intent_id: 'i_1', seq: 1, tool: 'work_queue_claim_finish', status: 'rejected', error: { code: 'claim_scope_invalid', message: 'claim_handle "<img src=x>|`rm -rf`|[a](http://e)" is not a member' } },
      { intent_id: 'i_2', seq: 2, tool: 'work_queue_submit', status: 'committed', request_id: 'wq-submit-1', commit_id: 'q_1', work_ids: ['w1', 'w2'] },
    ];
    const report: ProcessReport = {
      ok: true, schema: 'fairway.receipts/1', snapshot_id: 's', role: 'dispatcher', source_tip: 'q_0', observed_tip: 'q_1', processed_at: 1,
      counts: countStatuses(receipts), receipts, files: { receipts: 'receipts.json', summary: 'summary.md', assignments: [] },
    };
    const text = renderSummary(report);
    expect(report.counts).toEqual({ committed: 1, replayed: 0, already_admitted: 0, no_grant: 0, rejected: 1, suppressed: 0 });
    expect(text).toContain('1 committed, 0 already committed, 0 already admitted, 0 no grant, 0 suppressed, 1 rejected');
    expect(text).not.toMatch(/(?<!\\)<img|(?<!\\)`rm|(?<!\\)\]\(http/); // only escaped forms remain
    const row = text.split('\n').find((l) => l.includes('claim_scope_invalid'))!;
    expect(row.replace(/\\\|/g, '').split('|')).toHaveLength(10); // 8 cells: injected pipes cannot add columns
    expect(text.split('\n').length).toBeLessThan(12);
    expect(md('a\nb|c')).toBe('a b\\|c');
    // Bare URLs, www names and e-mail addresses an agent chose (a pool, a key) are not autolinked.
    for (const bare of ['https://evil.example/x', 'http://a.b', 'www.evil.example', 'WWW.Evil.example', 'x_www.evil.example', '(www.evil.example', 'someone@evil.example']) {
      const cell = md(bare);
      expect(cell).not.toMatch(/:\/\/|www\.|@[a-z]/i);
      expect(cell.replace(/\u200b/g, '').replace(/\\(.)/g, '$1')).toBe(bare); // reads the same, its Markdown escapes aside
    }
  });
});
