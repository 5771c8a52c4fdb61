/**
 * next-auth configuration (docs/console.md "Authentication and roles").
 * - local mode: a Credentials provider checking the one-time login token
 *   printed at start-up (single-use, expiring). The role is configuration:
 *   administrator only when the console was started with `--admin`, else
 *   observer (docs/console.md); the form sends no role.
 * - hosted mode: GitHub OAuth (GITHUB_ID / GITHUB_SECRET), with roles from
 *   the FAIRWAY_ROLES_FILE mapping of numeric GitHub user ids.
 * Sessions are JWTs signed with NEXTAUTH_SECRET (random per local start).
 */
import type { NextAuthOptions, User } from 'next-auth';
import CredentialsModule from 'next-auth/providers/credentials';
import GitHubModule from 'next-auth/providers/github';
import { readConfig } from '../console/config.ts';
import { isRole, loadRoleFile, roleFor, type Role } from './roles.ts';
import { consoleStartId, redeemLoginRole } from './token.ts';

/** next-auth ships CommonJS: a bundler hands over the function, Node's ESM loader the module object. */
function interop<F>(m: { default: F } | F): F {
  return ((m as { default?: F }).default ?? m) as F;
}
const Credentials = interop(CredentialsModule);
const GitHub = interop(GitHubModule);

interface ConsoleUser extends User {
  role: Role;
  principal: string;
  /** Local mode: the start that signed this session in (consoleStartId); lib/auth/session.ts refuses other starts' sessions. */
  start?: string | null;
}

let cached: NextAuthOptions | null = null;

export function authOptions(): NextAuthOptions {
  if (cached !== null) return cached;
  const config = readConfig();
  const hosted = config?.mode === 'hosted';
  const providers: NextAuthOptions['providers'] = hosted
    ? [GitHub({
        clientId: process.env.GITHUB_ID ?? '',
        clientSecret: process.env.GITHUB_SECRET ?? '',
        profile(profile: { id: number | string; login: string }) {
          const id = String(profile.id);
          return { id, name: profile.login, role: roleFor(loadRoleFile(), id), principal: id } as unknown as ConsoleUser;
        },
      })]
    : [Credentials({
        id: 'token',
        name: 'Login token',
        credentials: { token: { label: 'Login token', type: 'password' } },
        async authorize(credentials) {
          // Single-use: a second sign-in with the same link is refused (docs/console.md "Authentication and roles"). The role comes from
          // the start-up configuration, never from the request (docs/console.md).
          const role: Role | null = redeemLoginRole(credentials?.token, config?.admin === true);
          if (role === null) return null;
          const principal = config?.principal ?? '1';
          return { id: `local-${role}`, name: `local ${role}`, role, principal, start: consoleStartId() } as ConsoleUser;
        },
      })];
  cached = {
    providers,
    secret: process.env.NEXTAUTH_SECRET,
    session: { strategy: 'jwt', maxAge: 12 * 60 * 60 },
    pages: { signIn: '/login' },
    logger: {
      // Metadata only: next-auth errors can carry request details.
      error: (code) => console.error(`[auth] ${code}`),
      warn: () => {},
      debug: () => {},
    },
    callbacks: {
      async signIn({ user }) {
        return isRole((user as Partial<ConsoleUser>).role);
      },
      async jwt({ token, user }) {
        if (user !== undefined) {
          const u = user as ConsoleUser;
          token.role = u.role;
          token.principal = u.principal;
          if (typeof u.start === 'string') token.start = u.start;
        }
        return token;
      },
      async session({ session, token }) {
        const role = isRole(token.role) ? token.role : null;
        return { ...session, user: { name: session.user?.name ?? null, role, principal: typeof token.principal === 'string' ? token.principal : null, start: typeof token.start === 'string' ? token.start : null } };
      },
    },
  };
  return cached;
}
