/**
 * One child process run to its end with its output captured (contention tests and the
 * contention benchmark run `fairway` this way: a new process per call, as dispatchers do).
 */
import { spawn } from 'node:child_process';

export interface Captured { code: number | null; stdout: string; stderr: string }

export function captured(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Captured> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
