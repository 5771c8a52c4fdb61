/**
 * Console roles (docs/console.md "Authentication and roles"): `observer` reads, `administrator` also acts.
 * Hosted mode maps numeric GitHub user ids to roles with a JSON file:
 *
 *   {"administrators": ["1001"], "observers": ["2002"], "default_role": null}
 *
 * `default_role` ("observer" or null) applies to any other signed-in GitHub
 * user; null refuses them. Ids are decimal strings (lossless, spec 7.16).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export type Role = 'observer' | 'administrator';

const Id = z.string().regex(/^[1-9][0-9]{0,19}$/, 'a numeric GitHub user id as a string');
export const RoleFileSchema = z.strictObject({
  administrators: z.array(Id).default([]),
  observers: z.array(Id).default([]),
  default_role: z.enum(['observer']).nullable().default(null),
});
export type RoleFile = z.infer<typeof RoleFileSchema>;

export function parseRoleFile(text: string): RoleFile {
  return RoleFileSchema.parse(JSON.parse(text));
}

export function roleFor(file: RoleFile, githubId: string): Role | null {
  if (file.administrators.includes(githubId)) return 'administrator';
  if (file.observers.includes(githubId)) return 'observer';
  return file.default_role;
}

/** The role file named by FAIRWAY_ROLES_FILE (hosted mode); an absent setting grants nobody. */
export function loadRoleFile(env: Readonly<Record<string, string | undefined>> = process.env): RoleFile {
  const path = env.FAIRWAY_ROLES_FILE;
  if (path === undefined || path === '') return { administrators: [], observers: [], default_role: null };
  return parseRoleFile(readFileSync(path, 'utf8'));
}

export function isRole(value: unknown): value is Role {
  return value === 'observer' || value === 'administrator';
}
