/** The signed-in viewer of a server component or route handler (null: nobody). */
import { getServerSession } from 'next-auth';
import type { Viewer } from './guard.ts';
import { authOptions } from './options.ts';
import { isRole } from './roles.ts';

export async function currentViewer(): Promise<Viewer | null> {
  const session = (await getServerSession(authOptions())) as { user?: { name?: string | null; role?: unknown; principal?: unknown } } | null;
  const user = session?.user;
  if (user === undefined || !isRole(user.role) || typeof user.principal !== 'string') return null;
  return { role: user.role, name: user.name ?? user.role, principal: user.principal };
}

/** Local mode serves reads to anyone who can reach the (loopback) port; hosted mode needs a session. */
export async function canRead(mode: 'local' | 'hosted'): Promise<boolean> {
  return mode === 'local' || (await currentViewer().catch(() => null)) !== null;
}
