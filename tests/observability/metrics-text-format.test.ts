/**
 * `fairway stats --format prometheus` is the Prometheus text format (0.0.4), the one format
 * node_exporter's textfile collector and the Pushgateway parse: each sample's family is named by
 * a `# TYPE` line with the sample's own name, so a counter's `_total` samples stay a typed,
 * documented counter there (in OpenMetrics text they would read as an untyped metric without
 * help). `--format openmetrics` is the console's exposition; both carry the same values.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedDemoDay } from '../../lib/demo/day.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { runFairway } from '../support/cli.ts';
import { MemoryStore } from '../support/memory-store.ts';
import { parseOpenMetrics, type Sample } from './openmetrics.ts';

async function demoLedger(): Promise<string> {
  const store = new MemoryStore('metrics-text');
  await seedDemoDay(new Publisher(store), { now: Date.now() });
  const file = join(mkdtempSync(join(tmpdir(), 'fairway-metrics-text-')), 'work-queue.jsonl');
  writeFileSync(file, (await store.read()).bytes!);
  return file;
}

async function stats(file: string, format: string): Promise<string> {
  let out = '';
  expect(await runFairway(['--ledger', file, 'stats', '--format', format], { out: (s) => (out += s), err: () => undefined })).toBe(0);
  return out;
}

/** The samples of a Prometheus text (0.0.4), each with the family its `# TYPE` line declared, as the classic parsers group them. */
function parseClassic(text: string): Array<Sample & { family: string; type: string; help: string | undefined }> {
  const types = new Map<string, string>();
  const helps = new Map<string, string>();
  const out: Array<Sample & { family: string; type: string; help: string | undefined }> = [];
  for (const line of text.split('\n')) {
    const meta = /^# (TYPE|HELP) (\S+) (.*)$/.exec(line);
    if (meta !== null) (meta[1] === 'TYPE' ? types : helps).set(meta[2]!, meta[3]!);
    if (line === '' || line.startsWith('#')) continue;
    const [sample] = parseOpenMetrics(`${line}\n# EOF\n`);
    out.push({ ...sample!, family: sample!.name, type: types.get(sample!.name) ?? 'untyped', help: helps.get(sample!.name) });
  }
  return out;
}

const TIMELY = new Set(['fairway_metrics_evaluated_at_seconds', 'fairway_work_oldest_eligible_age_seconds']);
const key = (s: Sample) => `${s.name}${JSON.stringify(s.labels)}`;

describe('stats --format prometheus / openmetrics', () => {
  it('prometheus is the Prometheus text format: every sample, counters included, is typed and documented under its own name', async () => {
    const file = await demoLedger();
    const text = await stats(file, 'prometheus');
    expect(text).not.toContain('# EOF');
    expect(text).toContain('# TYPE fairway_grants_total counter');
    expect(text).toContain('# TYPE fairway_completions_total counter');
    const samples = parseClassic(text);
    expect(samples.length).toBeGreaterThan(0);
    for (const s of samples) {
      expect(s.type, s.name).not.toBe('untyped');
      expect(s.help, s.name).toBeDefined();
    }
    expect(samples.filter((s) => s.type === 'counter').map((s) => s.name)).toContain('fairway_grants_total');

    // OpenMetrics: the console's exposition, the same values.
    const om = parseOpenMetrics(await stats(file, 'openmetrics'));
    const values = (list: Sample[]) => new Map(list.filter((s) => !TIMELY.has(s.name)).map((s) => [key(s), s.value]));
    expect(values(samples)).toEqual(values(om));
  });
});
