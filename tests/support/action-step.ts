/**
 * The reusable Action's composite step scripts as GitHub runs them: the `run:` block of a step
 * of action.yml, unchanged, under bash with its inputs in the environment, and the outputs it
 * appended to GITHUB_OUTPUT (`name=value` and `name<<DELIM` blocks).
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;

/** The `run:` block of the composite step with this id in action.yml. */
export function stepScript(id = 'fairway'): string {
  const lines = readFileSync(join(ROOT, 'action.yml'), 'utf8').split('\n');
  const at = lines.findIndex((l) => l.trim() === `- id: ${id}`);
  const start = lines.findIndex((l, i) => i > at && l.trim() === 'run: |');
  const body: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.trim() !== '' && !l.startsWith('        ')) break;
    body.push(l.slice(8));
  }
  return body.join('\n');
}

/** The outputs a step appended to its GITHUB_OUTPUT file. */
export function stepOutputs(file: string): Record<string, string> {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([A-Za-z0-9_-]+)<<(.+)$/.exec(lines[i]!);
    if (heredoc !== null) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
      continue;
    }
    const kv = /^([A-Za-z0-9_-]+)=(.*)$/.exec(lines[i]!);
    if (kv !== null) out[kv[1]!] = kv[2]!;
  }
  return out;
}

/**
 * Runs the `fairway` step script with `env` (GITHUB_OUTPUT is `output`, emptied first). Async:
 * the GitHub stand-in answers from this process's event loop while the script runs.
 */
export function runStep(env: Record<string, string>, output: string, cwd: string): Promise<{ status: number | null; stdout: string; stderr: string; outputs: Record<string, string> }> {
  writeFileSync(output, '');
  return new Promise((resolve) => {
    execFile('bash', ['-c', stepScript()], { env: { ...env, GITHUB_OUTPUT: output } as Record<string, string> as NodeJS.ProcessEnv, cwd, encoding: 'utf8', maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ status, stdout, stderr, outputs: stepOutputs(output) });
    });
  });
}
