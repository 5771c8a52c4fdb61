/**
 * Installed backing-Issue projector rules (`Policy.projectors`; operator reference "Backing
 * Issues"): their coherence, and which rules give a projecting run authority over a target.
 *
 * A rule names the exact projecting workflow (`workflow` at revision `ref`, run by
 * `principal`), the pools whose Work it may project and the repositories it may project into.
 * Ordinary AW configuration supplies no rule: the protected hooks project their own Work into
 * the queue repository without one. A rule is needed for (reference behaviour):
 * - cross-repository projection: a backing Issue outside the queue repository;
 * - a pre-existing Issue named by a Work's `backing_issue`: the rule's exact `backing_issues` grant;
 * - closure: `completion_policy: "close-on-result"` on the rules in force at the Work's admission.
 */
import { canonicalize } from '../../codec/index.ts';
import type { JsonValue } from '../../json.ts';
import type { ProjectorRule, QueuePolicy } from '../../schema/index.ts';

/** Who projects: the publishing run's principal and workflow, and the projector revision. */
export interface ProjectorIdentity {
  principal: string;
  workflow: string | null;
  ref: string;
}

const REPOSITORY = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;

/** A Policy whose rules are read: installed, or an earlier epoch's (a checkpoint keeps only its rules). */
type RulesSource = Pick<Partial<QueuePolicy>, 'projectors'> | null | undefined;

/** The rules of an installed QueuePolicy object (none when absent). */
export function projectorRules(policy: RulesSource): ProjectorRule[] {
  return policy?.projectors ?? [];
}

/** What makes a schema-valid rule set unusable (null: coherent). `policy_invalid` in replay. */
export function projectorIncoherence(policy: QueuePolicy): string | null {
  const pools = policy.pools;
  return rulesIncoherence(projectorRules(policy), (pool) => Object.hasOwn(pools, pool));
}

/**
 * The coherence of `rules` with `installed` telling which pools exist (a checkpoint keeps an
 * earlier epoch's rules without its pools, and passes a predicate that accepts every pool).
 */
export function rulesIncoherence(rules: readonly ProjectorRule[], installed: (pool: string) => boolean): string | null {
  let i = 0;
  for (const rule of rules) {
    const at = `projectors.${i++}`;
    const w = rule.workflow;
    if (!w.startsWith('.github/workflows/') || !/\.ya?ml$/.test(w) || w.includes('..') || w.includes('\\')) {
      return `${at}.workflow ${JSON.stringify(w)} must name a workflow file under .github/workflows/ (projectors require an explicit immutable workflow)`;
    }
    for (const pool of rule.pools) if (!installed(pool)) return `${at}.pools: projector pool ${JSON.stringify(pool)} is not installed`;
    for (const repo of rule.repositories) if (!REPOSITORY.test(repo)) return `${at}.repositories: ${JSON.stringify(repo)} is not an owner/name repository`;
    for (const [j, issue] of (rule.backing_issues ?? []).entries()) {
      if (issue.kind !== 'issue') return `${at}.backing_issues.${j}: a backing target must be an Issue, not a ${issue.kind}`;
      if (!rule.repositories.includes(issue.repository)) return `${at}.backing_issues.${j}: ${issue.repository}#${issue.number} is outside the rule's repositories`;
    }
  }
  return null;
}

function sameResource(a: unknown, b: unknown): boolean {
  return canonicalize(a as JsonValue) === canonicalize(b as JsonValue);
}

/** Rules authorizing `who` to project Work of `pool` into `repository`. */
export function rulesFor(policy: RulesSource, who: ProjectorIdentity, pool: string, repository: string): ProjectorRule[] {
  if (who.workflow === null) return [];
  return projectorRules(policy).filter((r) => r.principal === who.principal && r.workflow === who.workflow && r.ref === who.ref && r.pools.includes(pool) && r.repositories.includes(repository));
}

/** Whether the rule grants exactly this pre-existing Issue. */
export function grantsIssue(rule: ProjectorRule, resource: unknown): boolean {
  return (rule.backing_issues ?? []).some((g) => sameResource(g, resource));
}

/** Admission: some installed rule of `pool` grants exactly this Issue (any projector; each projector is checked again when it projects). */
export function backingIssueGranted(policy: RulesSource, pool: string, resource: { repository: string }): boolean {
  return projectorRules(policy).some((r) => r.pools.includes(pool) && r.repositories.includes(resource.repository) && grantsIssue(r, resource));
}

/**
 * Whether `who` holds target authority over Work of `pool` whose Issue is `resource` in
 * `repository`: the queue repository's own created Issues need no rule; every other target
 * (another repository, or a pre-existing Issue named by `backing_issue`) needs an installed
 * rule, with the exact grant for a pre-existing Issue.
 */
export function holdsTargetAuthority(
  policy: RulesSource, queueRepository: string | null, who: ProjectorIdentity,
  target: { pool: string; repository: string; backingIssue?: unknown },
): boolean {
  if (target.backingIssue === undefined && target.repository === queueRepository) return true;
  return rulesFor(policy, who, target.pool, target.repository).some((r) => target.backingIssue === undefined || grantsIssue(r, target.backingIssue));
}

/**
 * The closure policy fixed at admission (reference `issueCompletionPolicy`): of the rules in
 * the Policy in force when the Work was admitted that match `who`, pool and repository,
 * `close-on-result` only if there is one and every one says so. A later Policy cannot
 * retroactively authorize closure.
 */
export function admissionCompletionPolicy(admissionPolicy: RulesSource, who: ProjectorIdentity, pool: string, repository: string): 'keep-open' | 'close-on-result' {
  const rules = rulesFor(admissionPolicy, who, pool, repository);
  return rules.length > 0 && rules.every((r) => r.completion_policy === 'close-on-result') ? 'close-on-result' : 'keep-open';
}
