/**
 * CPU time of this process tree, for benchmark ratios that hold on a shared machine (wall
 * time there depends on what else runs): this process (all its threads, µs), the children it
 * has waited for, and its live children (long-lived git helpers), from /proc (Linux; elsewhere
 * only this process). Children's times have the kernel's clock-tick resolution (10 ms), so a
 * ratio is taken over many operations.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ = 100 on Linux

function statFields(pid: number | 'self'): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU ms used so far by this process, its waited-for children and its live children. */
export function treeCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000 + childrenCpuMs();
}

/** CPU ms used so far by this process's children: those it has waited for, and the live ones. */
export function childrenCpuMs(): number {
  let ms = 0;
  const self = statFields('self');
  if (self === null) return ms;
  ms += (Number(self[13]) + Number(self[14])) * TICK_MS; // cutime, cstime
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return ms;
  }
  for (const name of pids) {
    const f = statFields(Number(name));
    if (f !== null && Number(f[1]) === process.pid) ms += (Number(f[11]) + Number(f[12])) * TICK_MS; // utime, stime
  }
  return ms;
}
