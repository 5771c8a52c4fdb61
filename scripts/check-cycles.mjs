#!/usr/bin/env node
/**
 * Import circles (docs/architecture.md, "No import circles"): builds the module graph of the
 * source folders from every `import … from`, `import type … from`, `export … from`, bare
 * `import '…'` and literal `import('…')`, resolves relative specifiers (and tsconfig `paths`
 * aliases, if any) to files, finds the strongly connected components (Tarjan) and prints one
 * shortest circle per component as a chain of files. Exit 1 when there is any.
 *
 * Dependency-free on purpose: `npm run lint` runs it before anything is built.
 *
 *   node scripts/check-cycles.mjs [--root DIR] [DIR ...]     (default: the source folders)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folders whose modules must form no circle. */
export const SOURCE_DIRS = ['engine', 'lib', 'cli', 'mcp', 'app', 'components', 'packages', 'bin', 'scripts', 'tests', 'bench', 'e2e'];

const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const SKIP_DIRS = new Set(['node_modules', '.next', 'dist', 'coverage', '.git']);
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.mjs', '.js'];

/**
 * Blank out comments and the contents of string/template literals except the quotes, so a
 * specifier in a comment is never read. Keeps offsets (newlines are preserved).
 */
function stripComments(text) {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const n = text[i + 1];
    if (c === '/' && n === '/') {
      while (i < text.length && text[i] !== '\n') { out += ' '; i++; }
    } else if (c === '/' && n === '*') {
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) { out += text[i] === '\n' ? '\n' : ' '; i++; }
      out += '  ';
      i += 2;
    } else if (c === '"' || c === "'" || c === '`') {
      // Copy the literal verbatim: specifiers live in them. Skip escapes; a template's `${`
      // expressions are rare in import lines and are copied as text.
      out += c;
      i++;
      while (i < text.length && text[i] !== c && !(c !== '`' && text[i] === '\n')) {
        if (text[i] === '\\') { out += text[i] + (text[i + 1] ?? ''); i += 2; continue; }
        out += text[i];
        i++;
      }
      if (i < text.length) { out += text[i]; i++; }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const STATIC = /(?:^|[\n;])\s*(?:import|export)\s+(?:type\s+)?(?:[\w*${},\s]+?\s+from\s+)?(['"])([^'"\n]+)\1/g;
const DYNAMIC = /\bimport\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g;

/** The module specifiers a source file names (static, type-only, re-exports, literal dynamic). */
export function importSpecifiers(text) {
  const code = stripComments(text);
  const found = [];
  for (const re of [STATIC, DYNAMIC]) {
    re.lastIndex = 0;
    for (let m = re.exec(code); m !== null; m = re.exec(code)) found.push(m[2]);
  }
  return found;
}

function walk(dir, files) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(join(dir, entry.name), files);
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.d.mts')) {
      files.push(join(dir, entry.name));
    }
  }
}

function isFile(path) {
  try { return statSync(path).isFile(); } catch { return false; }
}

/** A file for `base` (exact, `.js` written for `.ts`, an added extension, or a folder index). */
function resolveFile(base) {
  if (isFile(base)) return base;
  const js = base.match(/\.(m?)js$/);
  if (js !== null) {
    const stem = base.slice(0, -js[0].length);
    for (const ext of js[1] === 'm' ? ['.mts'] : ['.ts', '.tsx']) if (isFile(stem + ext)) return stem + ext;
  }
  for (const ext of EXTENSIONS) if (isFile(base + ext)) return base + ext;
  for (const ext of EXTENSIONS) if (isFile(join(base, `index${ext}`))) return join(base, `index${ext}`);
  return null;
}

/** tsconfig.json `compilerOptions.paths` (with `baseUrl`) as [prefix, suffix, targets, base]. */
function pathAliases(root) {
  const file = join(root, 'tsconfig.json');
  if (!existsSync(file)) return [];
  let options;
  try {
    options = JSON.parse(stripComments(readFileSync(file, 'utf8')).replace(/,(\s*[}\]])/g, '$1')).compilerOptions ?? {};
  } catch {
    return [];
  }
  const base = resolve(root, options.baseUrl ?? '.');
  return Object.entries(options.paths ?? {}).map(([pattern, targets]) => {
    const star = pattern.indexOf('*');
    return star < 0 ? [pattern, null, targets, base] : [pattern.slice(0, star), pattern.slice(star + 1), targets, base];
  });
}

function resolveSpecifier(from, specifier, aliases) {
  if (specifier.startsWith('.')) return resolveFile(resolve(dirname(from), specifier));
  for (const [prefix, suffix, targets, base] of aliases) {
    let rest;
    if (suffix === null) {
      if (specifier !== prefix) continue;
      rest = '';
    } else {
      if (!specifier.startsWith(prefix) || !specifier.endsWith(suffix)) continue;
      rest = specifier.slice(prefix.length, specifier.length - suffix.length);
    }
    for (const target of targets) {
      const hit = resolveFile(resolve(base, target.replace('*', rest)));
      if (hit !== null) return hit;
    }
  }
  return null; // a package: not part of the tree
}

/** The module graph: file (relative to root, `/`-separated) → the files it imports. */
export function moduleGraph(root, dirs = SOURCE_DIRS) {
  const files = [];
  for (const dir of dirs) walk(resolve(root, dir), files);
  const aliases = pathAliases(root);
  const name = (path) => relative(root, path).split(sep).join('/');
  const graph = new Map();
  for (const file of files.sort()) {
    const edges = new Set();
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      const target = resolveSpecifier(file, specifier, aliases);
      if (target !== null && SOURCE.test(target)) edges.add(name(target));
    }
    graph.set(name(file), [...edges].sort());
  }
  // Imported files outside the scanned folders are leaves here: they cannot close a circle
  // through the scanned tree without importing it, and then they would be scanned.
  return graph;
}

/** Strongly connected components with a circle (Tarjan; iterative, so deep chains are fine). */
export function circularComponents(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const frames = [{ node: start, edge: 0 }];
    index.set(start, next); low.set(start, next); next++;
    stack.push(start); onStack.add(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++];
        if (!index.has(to)) {
          index.set(to, next); low.set(to, next); next++;
          stack.push(to); onStack.add(to);
          frames.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node), index.get(to)));
        }
        continue;
      }
      frames.pop();
      if (frames.length > 0) {
        const parent = frames[frames.length - 1].node;
        low.set(parent, Math.min(low.get(parent), low.get(frame.node)));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const members = [];
        let member;
        do { member = stack.pop(); onStack.delete(member); members.push(member); } while (member !== frame.node);
        const selfLoop = members.length === 1 && (graph.get(members[0]) ?? []).includes(members[0]);
        if (members.length > 1 || selfLoop) components.push(members.sort());
      }
    }
  }
  return components.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** A shortest circle through the component's first file (breadth-first inside the component). */
export function shortestCircle(graph, members) {
  const inside = new Set(members);
  const start = members[0];
  const parent = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of graph.get(node) ?? []) {
      if (!inside.has(to)) continue;
      if (to === start) {
        const chain = [start];
        for (let at = node; at !== start; at = parent.get(at)) chain.splice(1, 0, at);
        return [...chain, start];
      }
      if (!parent.has(to)) { parent.set(to, node); queue.push(to); }
    }
  }
  return [start, start];
}

/** Every import circle under `root`: the component's files and one shortest chain through it. */
export function findCircles(root, dirs = SOURCE_DIRS) {
  const graph = moduleGraph(root, dirs);
  return circularComponents(graph).map((files) => ({ files, chain: shortestCircle(graph, files) }));
}

function main(argv) {
  let root = process.cwd();
  const dirs = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root') root = resolve(argv[++i]);
    else dirs.push(argv[i]);
  }
  const circles = findCircles(root, dirs.length > 0 ? dirs : SOURCE_DIRS);
  if (circles.length === 0) {
    console.log(`check-cycles: no import circles in ${(dirs.length > 0 ? dirs : SOURCE_DIRS).join(', ')}`);
    return 0;
  }
  console.error(`check-cycles: ${circles.length} import circle${circles.length === 1 ? '' : 's'} (docs/architecture.md, "No import circles"):`);
  for (const { files, chain } of circles) {
    console.error(`  ${chain.join(' → ')}`);
    if (files.length > chain.length - 1) console.error(`    (one of ${files.length} files importing each other: ${files.join(', ')})`);
  }
  return 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
