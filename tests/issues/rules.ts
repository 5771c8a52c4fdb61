/**
 * Projector rules for tests (operator reference "Backing Issues"): a Policy resolved from
 * aw.json as production does, with pool `default` also allowing a second repository and the
 * given `projectors` rules installed (by default for the projecting run below).
 */
import type { JsonObject } from '../../engine/json.ts';
import type { Actor, ProjectorRule } from '../../engine/schema/index.ts';
import { policyOf, reconciler, REPOSITORY } from '../acceptance/queue.ts';

export const OTHER = 'owner/other';
export const PROJECTOR_WORKFLOW = '.github/workflows/queue.yml';
export const RULE_REF = 'a'.repeat(40);

/** The projecting run: the protected hook's reconciler inside its GitHub Actions run. */
export const projectorActor: Actor = { ...reconciler, workflow: PROJECTOR_WORKFLOW, run_id: '424242', run_attempt: 1 };

export function rule(extra: Partial<ProjectorRule> = {}): ProjectorRule {
  return { principal: '1001', workflow: PROJECTOR_WORKFLOW, ref: RULE_REF, pools: ['default'], repositories: [REPOSITORY, OTHER], ...extra };
}

/** policyOf() with `allowed` repositories on pool default and `rules` installed (none: no projectors member). */
export function policyWith(rules: ProjectorRule[], allowed: string[] = [REPOSITORY, OTHER]): JsonObject {
  const policy = structuredClone(policyOf()) as JsonObject & { pools: Record<string, JsonObject> };
  policy.pools.default!.allowed_repositories = allowed;
  if (rules.length > 0) policy.projectors = rules as unknown as JsonObject[];
  return policy;
}

/** An Issue identity in `repository` (repository id 2 for the second repository). */
export function issueIn(repository: string, number: number, resourceId = String(700000 + number)): JsonObject {
  return { kind: 'issue', host: 'github.com', repository, repository_id: repository === REPOSITORY ? '1' : '2', resource_id: resourceId, number: String(number) };
}
