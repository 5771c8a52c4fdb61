/** The demo's Work definitions: the SDK-migration DAG (spec section 0) and team backlogs. */
import type { JsonObject } from '../../engine/json.ts';
import type { SubmitNode } from '../../engine/requests/operations.ts';
import { DESIGN_REPOSITORY, UPSTREAM_REPOSITORY } from './policy.ts';

/** The browser tests' XSS probe (node key and payload). */
export const PROBE_TEXT = '<img src=x onerror=alert(1)>';

export const DESIGN_ISSUE: JsonObject = {
  kind: 'issue', host: 'github.com', repository: DESIGN_REPOSITORY, repository_id: '610001', resource_id: '2200012', number: '12',
};
export const UPSTREAM_PR: JsonObject = {
  kind: 'pull_request', host: 'github.com', repository: UPSTREAM_REPOSITORY, repository_id: '610002', resource_id: '3300081', number: '81',
};

const work = (node_key: string) => ({ kind: 'work' as const, node_key });

export function sdkMigrationNodes(): SubmitNode[] {
  const shared = { fairness_key: 'platform', priority: 2, worker_profile: 'sdk-shared' };
  return [
    {
      node_key: 'inspect-sdk-usage', ...shared,
      payload: { plan: 'Inspect current SDK usage', scope: ['services/', 'packages/'] },
      depends_on: [{ kind: 'issue', condition: 'completed', resource: DESIGN_ISSUE }],
    },
    { node_key: 'propose-code-changes', ...shared, payload: { plan: 'Propose code changes' }, depends_on: [work('inspect-sdk-usage')] },
    { node_key: 'propose-docs-changes', ...shared, payload: { plan: 'Propose documentation changes' }, depends_on: [work('inspect-sdk-usage')] },
    { node_key: 'update-ci-config', ...shared, payload: { plan: 'Update CI configuration for the new SDK' }, depends_on: [work('inspect-sdk-usage')] },
    {
      node_key: 'review-proposals', fairness_key: 'platform', priority: 2,
      payload: { plan: 'Review both verified proposals' },
      depends_on: [
        { kind: 'pull_request', condition: 'merged', resource: UPSTREAM_PR },
        work('propose-code-changes'), work('propose-docs-changes'), work('update-ci-config'),
      ],
    },
    { node_key: 'submit-for-human-review', fairness_key: 'platform', priority: 2, payload: { plan: 'Submit changes for human review' }, depends_on: [work('review-proposals')] },
  ];
}

const AREAS = ['api', 'billing', 'search', 'auth', 'storage', 'notifications', 'web', 'mobile'];

export function backlogNodes(team: 'platform' | 'security', count: number, priority: number): SubmitNode[] {
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(3, '0');
    const area = AREAS[i % AREAS.length]!;
    return team === 'platform'
      ? { node_key: `migrate-${area}-module-${n}`, payload: { plan: `Migrate ${area} module ${n} to the new SDK`, area }, fairness_key: team, priority }
      : { node_key: `security-check-${n}`, payload: { plan: `Dependency and secret scan ${n}`, area }, fairness_key: team, priority };
  });
}
