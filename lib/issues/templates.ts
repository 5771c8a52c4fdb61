/** The Markdown templates of generated Issue text, kept in the repository (`templates/issue-*.md`). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkTemplates, type TemplateName, type Templates } from '../../engine/issues/render.ts';

const NAMES: TemplateName[] = ['issue-body', 'issue-summary', 'issue-claim'];

let cached: Templates | null = null;

export function issueTemplates(): Templates {
  if (cached !== null) return cached;
  const read = (name: TemplateName) => readFileSync(fileURLToPath(new URL(`../../templates/${name}.md`, import.meta.url)), 'utf8');
  const templates = Object.fromEntries(NAMES.map((n) => [n, read(n)])) as Record<TemplateName, string>;
  checkTemplates(templates);
  return (cached = templates);
}
