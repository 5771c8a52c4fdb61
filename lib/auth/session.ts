/** The signed-in viewer of a server component or route handler (null: nobody). */
import { getServerSession } from 'next-auth';
import { readConfig } from '../console/config.ts';
import type { Viewer } from './guard.ts';
import { authOptions } from './options.ts';
import { isRole, loadRoleFile, roleFor } from './roles.ts';
import { consoleStartId } from './token.ts';

export async function currentViewer(): Promise<Viewer | null> {
  const session = (await getServerSession(authOptions())) as { user?: { name?: string | null; role?: unknown; principal?: unknown; start?: unknown } } | null;
  const user = session?.user;
  if (user === undefined || !isRole(user.role) || typeof user.principal !== 'string') return null;
  const config = readConfig();
  if (config?.mode === 'hosted') {
    // The role file decides on every request, not the role copied into the session at sign-in:
    // an administrator demoted or removed there stops acting at once, not when the session expires.
    const role = roleFor(loadRoleFile(), user.principal);
    return role === null ? null : { role, name: user.name ?? role, principal: user.principal };
  }
  // Local mode: the role is this start's configuration (docs/console.md "Authentication and roles"). A session
  // another start signed in (a stable NEXTAUTH_SECRET keeps it decodable) is nobody's, and an
  // administrator session is honoured only while the console runs with --admin.
  const start = consoleStartId();
  if (start === null || user.start !== start) return null;
  if (user.role === 'administrator' && config?.admin !== true) return null;
  return { role: user.role, name: user.name ?? user.role, principal: user.principal };
}

/** Local mode serves reads to anyone who can reach the (loopback) port; hosted mode needs a session. */
export async function canRead(mode: 'local' | 'hosted'): Promise<boolean> {
  return mode === 'local' || (await currentViewer().catch(() => null)) !== null;
}
