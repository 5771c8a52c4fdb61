/**
 * CPU time of replay's grant check alone (`packGrant`, engine/scheduler/pack.ts) at the
 * predecessor state of every `dispatch_next` of a ledger: the ledger is replayed up to each
 * grant, `packGrant` is run there (it never changes the state) twice to warm up and then REPS
 * times, and the mean of each grant is summed over the ledger (docs/performance.md, "Replay:
 * grant check").
 *
 *   npx esbuild bench/grant-check.ts --bundle --platform=node --format=esm --outfile=/tmp/grant-check.mjs
 *   node /tmp/grant-check.mjs LEDGER [REPS=10]
 *
 * Prints one JSON object: grants checked and the summed mean packGrant CPU ms (one replay's worth).
 */
import { readFileSync } from 'node:fs';
import { appendLedger, replayLedger, type Projection } from '../engine/replay/index.ts';
import { packGrant, type DispatchNextRequest } from '../engine/scheduler/pack.ts';

interface GrantLine {
  id: string;
  at: number;
  request: { id: string; kind: string; parameters: { pool: string; max_claims: number; max_dispatches: number; max_bytes: number } };
  operations: Array<{ kind: string }>;
}

const cpuMs = (from: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};

const file = process.argv[2];
if (file === undefined) throw new Error('usage: grant-check LEDGER [REPS]');
const reps = Number(process.argv[3] ?? 10);
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
const encoder = new TextEncoder();
let projection: Projection | null = null;
let pending: string[] = [];
const flush = (): void => {
  if (pending.length === 0) return;
  const bytes = encoder.encode(pending.map((l) => `${l}\n`).join(''));
  projection = projection === null ? replayLedger(bytes) : appendLedger(projection, bytes);
  pending = [];
};

let grants = 0;
let total = 0;
for (const text of lines) {
  if (text.includes('"dispatch_next"')) {
    const line = JSON.parse(text) as GrantLine;
    if (line.request.kind === 'dispatch_next' && (projection !== null || pending.length > 0)) {
      flush();
      const p = line.request.parameters;
      const request: DispatchNextRequest = {
        requestId: line.request.id,
        commitId: line.id,
        pool: p.pool,
        max_claims: p.max_claims,
        max_dispatches: p.max_dispatches,
        max_bytes: p.max_bytes,
        precedingOperations: line.operations.findIndex((op) => op.kind === 'Claim'),
      };
      const state = projection!.state;
      for (let r = 0; r < 2; r++) packGrant(state, request, line.at);
      const start = process.cpuUsage();
      for (let r = 0; r < reps; r++) packGrant(state, request, line.at);
      total += cpuMs(start) / reps;
      grants++;
    }
  }
  pending.push(text);
}
flush();
console.log(JSON.stringify({ ledger: file, grants, packGrantCpuMs: Math.round(total * 100) / 100 }));
