/** The Markdown templates of generated Issue text, kept in the repository (`templates/issue-*.md`). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkTemplates, type TemplateName, type Templates } from '../../engine/issues/render.ts';

const NAMES: TemplateName[] = ['issue-body', 'issue-summary', 'issue-claim'];

let cached: Templates | null = null;

/**
 * The repository's `templates/` directory: found upwards from this module, which runs from
 * source (lib/issues/) or from the bundled CLI (dist/<build>/); never a blank fallback.
 */
function templatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'templates', 'issue-body.md'))) return join(dir, 'templates');
    dir = dirname(dir);
  }
  throw new Error('templates/issue-*.md not found above the Fairway installation');
}

export function issueTemplates(): Templates {
  if (cached !== null) return cached;
  const dir = templatesDir();
  const read = (name: TemplateName) => readFileSync(join(dir, `${name}.md`), 'utf8');
  const templates = Object.fromEntries(NAMES.map((n) => [n, read(n)])) as Record<TemplateName, string>;
  checkTemplates(templates);
  return (cached = templates);
}
