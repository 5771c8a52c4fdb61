/**
 * What the console server reads and who it is for, passed from the starting
 * process (`fairway console`) to the Next.js server code through one
 * environment variable, so both module graphs agree without sharing objects.
 */
import { z } from 'zod';

export const CONFIG_ENV = 'FAIRWAY_CONSOLE_CONFIG';

const SourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('repo'), repo: z.string().min(1), branch: z.string().min(1) }),
  z.object({ kind: z.literal('remote'), repo: z.string().min(1), remote: z.string().min(1), branch: z.string().min(1) }),
  z.object({ kind: z.literal('github'), github: z.string().min(1), branch: z.string().min(1) }),
  z.object({ kind: z.literal('ledger'), ledger: z.string().min(1) }),
]);
export type ConsoleSource = z.infer<typeof SourceSchema>;

export const ConsoleConfigSchema = z.object({
  source: SourceSchema,
  /** The embedded demo queue (labelled as such everywhere). */
  demo: z.boolean().default(false),
  /** local: one-time token sign-in; hosted: GitHub OAuth with a role file. */
  mode: z.enum(['local', 'hosted']).default('local'),
  /** Local mode: the start-up login tokens sign in as administrator (`fairway console --admin`); otherwise as observer. */
  admin: z.boolean().optional(),
  /** Ledger tip polling interval of the browser (ms). */
  pollMs: z.number().int().min(500).max(600_000).default(5000),
  /** Principal (decimal GitHub user id) that local-mode administrator actions are published as. */
  principal: z.string().regex(/^[1-9][0-9]*$/).default('1'),
  /** Fixed "now" for live views (deterministic tests and benchmarks); unset: the wall clock. */
  fixedNow: z.number().int().min(0).optional(),
});
export type ConsoleConfig = z.infer<typeof ConsoleConfigSchema>;

export function encodeConfig(config: ConsoleConfig): string {
  return JSON.stringify(ConsoleConfigSchema.parse(config));
}

/** The server's configuration; null when the console was started without one. */
export function readConfig(env: Readonly<Record<string, string | undefined>> = process.env): ConsoleConfig | null {
  const raw = env[CONFIG_ENV];
  if (raw === undefined || raw === '') return null;
  return ConsoleConfigSchema.parse(JSON.parse(raw));
}

/**
 * A short human label of the source (never a token). `githubHost`: the server a GitHub-backed
 * store talks to (lib/console/store.ts `consoleGitHubHost`); the other sources do not name one.
 */
export function sourceLabel(source: ConsoleSource, githubHost: string): string {
  switch (source.kind) {
    case 'repo': return `${source.repo} @ ${source.branch}`;
    case 'remote': return `${source.repo} → ${source.remote}/${source.branch}`;
    case 'github': return `${githubHost}/${source.github} @ ${source.branch}`;
    case 'ledger': return `${source.ledger} (read-only file)`;
  }
}
