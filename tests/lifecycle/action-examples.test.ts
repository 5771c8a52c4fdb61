/**
 * The example workflows (examples/workflows/) against the Action's step script: every
 * `owner/fairway` step that publishes as a principal -- the Result of `settle`, and the
 * backing-Issue projection of `activate` (issues defaults to 'true') -- passes `principal`.
 * The Action hands an empty `principal` input to the CLI as FAIRWAY_PRINCIPAL='', which is
 * `principal_invalid`: the example worker's activate used to omit it, so its projection
 * always failed (a warning only).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/action-step.ts';

/** Steps whose command (or projection) publishes as FAIRWAY_PRINCIPAL. */
const NEEDS_PRINCIPAL = new Set(['dispatch', 'activate', 'settle', 'deliver', 'reconcile', 'observe', 'deploy']);

function fairwaySteps(text: string): Array<{ step: string; block: string }> {
  return text.split(/\n\s+- (?=[a-z-]+:)/).filter((b) => /uses: owner\/fairway@/.test(b)).map((block) => ({ step: /\bstep: ([a-z-]+)/.exec(block)![1]!, block }));
}

describe('example workflows', () => {
  it('action-examples: every example step that publishes as a principal passes principal (settle Results, activate projection)', () => {
    const dir = join(ROOT, 'examples', 'workflows');
    const steps = readdirSync(dir).flatMap((f) => fairwaySteps(readFileSync(join(dir, f), 'utf8')).map((s) => ({ ...s, file: f })));
    expect(steps.map((s) => s.step).sort()).toEqual(['activate', 'dispatch', 'reconcile', 'settle']);
    for (const s of steps) {
      const projects = !/\bissues: 'false'/.test(s.block);
      if (NEEDS_PRINCIPAL.has(s.step) && (s.step !== 'activate' || projects)) expect(s.block, `${s.file} ${s.step}`).toMatch(/\bprincipal: \S/);
    }
    expect(readFileSync(join(ROOT, 'action.yml'), 'utf8')).toMatch(/principal:\n\s+description: >-\n\s+Decimal GitHub actor id this step publishes as: required by dispatch, reconcile, observe,\n\s+deploy, deliver and settle/);
  });

  it('action-examples: the reconciler passes receipts-dir only when the receipts artifact was downloaded (a missing --receipts directory is receipts_not_found, nothing reconciled)', () => {
    const text = readFileSync(join(ROOT, 'examples', 'workflows', 'work-queue-reconciler.yml'), 'utf8');
    // A worker run that uploaded no receipts has no artifact: its download fails (continue-on-error).
    const download = /\n\s+- id: ([a-z-]+)\n(?:[ \t]+[^\n]*\n)*?[ \t]+uses: actions\/download-artifact@/.exec(text);
    expect(download, 'the download step has an id').not.toBeNull();
    const reconcile = fairwaySteps(text).find((s) => s.step === 'reconcile');
    expect(reconcile?.block).toMatch(new RegExp(`\\breceipts-dir: \\$\\{\\{ steps\\.${download![1]}\\.outcome == 'success' && `));
  });
});
