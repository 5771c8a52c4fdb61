import { expect, test } from '@playwright/test';
import { mermaidRendered, shot } from './helpers.ts';

const NODES = ['inspect-sdk-usage', 'propose-code-changes', 'propose-docs-changes', 'update-ci-config', 'review-proposals', 'submit-for-human-review'];

test('4. the graph page renders every node of the SDK-migration DAG', async ({ page }) => {
  await page.goto('/graphs/sdk-migration');
  await mermaidRendered(page, 'graph-diagram');
  const svg = page.getByTestId('graph-diagram').locator('svg');
  await expect(svg.locator('g.node')).toHaveCount(NODES.length + 2); // six Work, one Issue gate, one PR gate
  for (const n of NODES) await expect(svg).toContainText(n);
  await expect(svg).toContainText('Issue acme/sdk-design#12');
  await expect(svg).toContainText('PR acme/upstream-sdk#81');
  await expect(page.getByTestId('graph-node-row')).toHaveCount(NODES.length + 2);
  await shot(page, 'graph-sdk-migration');

  // Nodes are links: clicking one opens its Work page.
  await svg.locator('g.node', { hasText: 'review-proposals' }).click();
  await expect(page.getByTestId('work-title')).toHaveText('review-proposals');

  // A 501-vertex graph is drawn as a bounded view, not a hairball.
  await page.goto('/graphs/platform-migration');
  await expect(page.getByTestId('graph-bounded')).toBeVisible();
  await mermaidRendered(page, 'graph-diagram');
  await shot(page, 'graph-platform-bounded');
});
