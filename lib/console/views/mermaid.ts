/**
 * Mermaid text builders' escaping (docs/console.md "Safety"): submitted strings never reach
 * Mermaid syntax raw. Node ids are generated (`n0`, `n1`, ...); every label
 * character outside a small safe set becomes a Mermaid entity code (`#60;`),
 * which Mermaid renders as that character's text, never as markup. The
 * renderer runs with `securityLevel: 'strict'` on top of this.
 */

const SAFE = /[A-Za-z0-9 _.,:/@()+=-]/;
/** Longest label text kept (characters), so a hostile key cannot bloat a diagram. */
const MAX_LABEL = 80;

export function mermaidText(text: string, max = MAX_LABEL): string {
  const chars = [...text];
  const clipped = chars.length > max ? [...chars.slice(0, max - 1), '…'] : chars;
  let out = '';
  for (const ch of clipped) out += SAFE.test(ch) ? ch : `#${ch.codePointAt(0)};`;
  return out;
}

/** A quoted flowchart label: `"..."` with escaped content. */
export function mermaidLabel(...lines: string[]): string {
  return `"${lines.map((l) => mermaidText(l)).join('<br/>')}"`;
}

/** Node shapes of docs/console.md "Pages" `/graphs/[id]`: Work, Issue and PR are told apart by shape. */
export function shape(kind: 'work' | 'issue' | 'pull_request', id: string, label: string): string {
  switch (kind) {
    case 'work': return `${id}[${label}]`;
    case 'issue': return `${id}{{${label}}}`;
    case 'pull_request': return `${id}[/${label}/]`;
  }
}

/** Fill/stroke per status class (colour is never the only signal: labels carry the state). */
export const STATUS_CLASSES: Readonly<Record<string, string>> = {
  ready: 'fill:#dcfce7,stroke:#15803d,color:#052e16',
  running: 'fill:#dbeafe,stroke:#1d4ed8,color:#172554',
  waiting: 'fill:#fef3c7,stroke:#b45309,color:#451a03',
  delivering: 'fill:#e0e7ff,stroke:#4338ca,color:#1e1b4b',
  done: 'fill:#f1f5f9,stroke:#64748b,color:#0f172a',
  failed: 'fill:#fee2e2,stroke:#b91c1c,color:#450a0a',
  cancelled: 'fill:#f4f4f5,stroke:#a1a1aa,color:#52525b,stroke-dasharray:4 3',
  gate_ok: 'fill:#ecfdf5,stroke:#047857,color:#022c22',
  gate_wait: 'fill:#fff7ed,stroke:#c2410c,color:#431407',
  focus: 'stroke-width:3px',
};

export function classDefs(used: Iterable<string>): string[] {
  return [...new Set(used)].filter((c) => STATUS_CLASSES[c] !== undefined).map((c) => `classDef ${c} ${STATUS_CLASSES[c]}`);
}
