/**
 * A regular expression of fixed-form text (hex digests, Git object names) as the source of a
 * loop over UTF-16 units, for the generated validator (compiled.ts): entering the regular
 * expression engine costs more than the whole check of a 64-unit digest.
 *
 * Only a small, deterministic subset is read; anything else answers null and the caller keeps
 * `RegExp#test`. The subset: no flags; `^` ALT `$` or `^(?:` ALT `|` ... `)$`, each ALT a
 * sequence of atoms (a plain character or a `[...]` class of plain characters and ranges, not
 * negated), each atom at most once quantified (`{n}`, `{n,m}`, `{n,}`, `?`, `*`, `+`, greedy),
 * and every atom but an alternative's last of a fixed count. Such an alternative matches exactly
 * the strings whose length lies in its range and whose every unit lies in its atom's class at
 * that position, so no backtracking is needed. Without flags a pattern matches UTF-16 units,
 * `^` and `$` only the ends of the input (ECMA-262 22.2.2).
 */

/** Inclusive UTF-16 unit ranges. */
type UnitClass = Array<[number, number]>;

interface Atom {
  units: UnitClass;
  min: number;
  max: number; // Infinity when unbounded
}

const SPECIAL = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}', '/']);

class Reader {
  i = 0;
  constructor(readonly s: string) {}
  peek(): string | undefined {
    return this.s[this.i];
  }
  eat(text: string): boolean {
    if (!this.s.startsWith(text, this.i)) return false;
    this.i += text.length;
    return true;
  }
  number(): number | null {
    const m = /^[0-9]{1,4}/.exec(this.s.slice(this.i));
    if (m === null) return null;
    this.i += m[0].length;
    return Number(m[0]);
  }
}

function plain(c: string | undefined): c is string {
  return c !== undefined && c.length === 1 && !SPECIAL.has(c) && c !== '-';
}

/** A class member standing for itself (syntax characters are literal in a class; `\`, `[`, `]`, `-` are not read). */
function classPlain(c: string | undefined): c is string {
  return c !== undefined && c.length === 1 && c !== '\\' && c !== '[' && c !== ']' && c !== '-';
}

function classOf(r: Reader): UnitClass | null {
  if (r.eat('[')) {
    if (r.peek() === '^') return null;
    const units: UnitClass = [];
    while (!r.eat(']')) {
      const c = r.peek();
      if (!classPlain(c)) {
        // A `-` is literal only as the class's last member.
        if (c === '-' && r.s[r.i + 1] === ']') {
          r.i++;
          units.push([0x2d, 0x2d]);
          continue;
        }
        return null;
      }
      r.i++;
      if (r.peek() === '-' && r.s[r.i + 1] !== ']') {
        r.i++;
        const to = r.peek();
        if (!classPlain(to) || to.charCodeAt(0) < c.charCodeAt(0)) return null;
        r.i++;
        units.push([c.charCodeAt(0), to.charCodeAt(0)]);
      } else units.push([c.charCodeAt(0), c.charCodeAt(0)]);
    }
    return units.length === 0 ? null : units;
  }
  const c = r.peek();
  if (!plain(c)) return null;
  r.i++;
  return [[c.charCodeAt(0), c.charCodeAt(0)]];
}

function quantifier(r: Reader): [number, number] | null {
  let q: [number, number] = [1, 1];
  if (r.eat('?')) q = [0, 1];
  else if (r.eat('*')) q = [0, Infinity];
  else if (r.eat('+')) q = [1, Infinity];
  else if (r.eat('{')) {
    const min = r.number();
    if (min === null) return null;
    let max = min;
    if (r.eat(',')) max = r.peek() === '}' ? Infinity : (r.number() ?? -1);
    if (!r.eat('}') || max < min) return null;
    q = [min, max];
  }
  // A lazy or doubled quantifier is outside the subset.
  return r.peek() === '?' || r.peek() === '*' || r.peek() === '+' || r.peek() === '{' ? null : q;
}

function alternative(r: Reader, end: string): Atom[] | null {
  const atoms: Atom[] = [];
  while (r.peek() !== '|' && !r.s.startsWith(end, r.i)) {
    const units = classOf(r);
    if (units === null) return null;
    const q = quantifier(r);
    if (q === null) return null;
    atoms.push({ units, min: q[0], max: q[1] });
  }
  // Deterministic: only the last atom may vary in count.
  return atoms.every((a, k) => k === atoms.length - 1 || a.min === a.max) ? atoms : null;
}

/** The alternatives of `pattern` when it is in the subset (see the module comment), else null. */
export function fixedFormAlternatives(pattern: RegExp): Atom[][] | null {
  if (pattern.flags !== '') return null;
  const r = new Reader(pattern.source);
  if (!r.eat('^')) return null;
  const grouped = r.eat('(?:');
  const end = grouped ? ')$' : '$';
  const alternatives: Atom[][] = [];
  for (;;) {
    const alt = alternative(r, end);
    if (alt === null) return null;
    alternatives.push(alt);
    if (!r.eat('|')) break;
    if (!grouped) return null; // `^a|b$` is (^a)|(b$)
  }
  return r.eat(end) && r.i === r.s.length ? alternatives : null;
}

/** A membership table of every UTF-16 unit (a load per unit, no branch on the unit's value). */
function unitTable(units: UnitClass): Uint8Array {
  const key = JSON.stringify(units);
  let table = tables.get(key);
  if (table === undefined) {
    table = new Uint8Array(0x10000);
    for (const [lo, hi] of units) table.fill(1, lo, hi + 1);
    tables.set(key, table);
  }
  return table;
}
const tables = new Map<string, Uint8Array>();

/**
 * Source of `function name(s)` answering `pattern.test(s)` for a string `s`, or null when the
 * pattern is outside the subset. `constant` names a value for the source (the unit tables).
 */
export function patternFunctionSource(pattern: RegExp, name: string, constant: (value: unknown) => string): string | null {
  const alternatives = fixedFormAlternatives(pattern);
  if (alternatives === null) return null;
  const lines = [`function ${name}(s) {`, '  const n = s.length;'];
  alternatives.forEach((atoms, k) => {
    const fixed = atoms.reduce((sum, a, j) => (j === atoms.length - 1 ? sum : sum + a.min), 0);
    const last = atoms[atoms.length - 1];
    const min = fixed + (last?.min ?? 0);
    const max = fixed + (last?.max ?? 0);
    const length = max === Infinity ? `n >= ${min}` : min === max ? `n === ${min}` : `n >= ${min} && n <= ${max}`;
    lines.push(`  a${k}: if (${length}) {`);
    let at = 0;
    atoms.forEach((atom, j) => {
      const to = j === atoms.length - 1 ? 'n' : String(at + atom.min);
      lines.push(`    const t${j} = ${constant(unitTable(atom.units))};`, `    for (let i = ${at}; i < ${to}; i++) if (t${j}[s.charCodeAt(i)] === 0) break a${k};`);
      at += atom.min;
    });
    lines.push('    return true;', '  }');
  });
  lines.push('  return false;', '}');
  return lines.join('\n');
}
