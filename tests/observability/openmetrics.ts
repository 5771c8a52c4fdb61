/** A small OpenMetrics text reader for the metrics tests: `name{labels} value` samples. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-z_:][a-z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-z_]+)="((?:[^"\\]|\\.)*)"/g;

export function parseOpenMetrics(text: string): Sample[] {
  const lines = text.split('\n').filter((l) => l !== '');
  if (lines[lines.length - 1] !== '# EOF') throw new Error('OpenMetrics text must end with # EOF');
  const samples: Sample[] = [];
  for (const line of lines) {
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = JSON.parse(`"${l[2]!}"`) as string;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** Σ of the samples named `name` whose labels include `where`. */
export function total(samples: Sample[], name: string, where: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);
}

/** The one sample named `name` with exactly these labels (undefined: absent). */
export function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.keys(s.labels).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

/** Claim and Completion operations of a ledger's text, counted directly from its lines. */
export function ledgerCounts(ledger: string): { claims: number; completions: number } {
  let claims = 0;
  let completions = 0;
  for (const line of ledger.split('\n')) {
    if (line === '') continue;
    for (const op of (JSON.parse(line) as { operations: Array<{ kind: string }> }).operations) {
      if (op.kind === 'Claim') claims += 1;
      if (op.kind === 'Completion') completions += 1;
    }
  }
  return { claims, completions };
}
