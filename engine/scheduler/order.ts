/**
 * Stable tie-break orders of spec 7.5: classes in numeric order, accounting
 * keys in UTF-8 byte order (the canonical JSON key order, contract `canonical_json`).
 */

/** UTF-8 byte order (= code-point order); differs from `<` only around surrogates. */
export function utf8Compare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (D800-DFFF) encode code points above U+FFFF: move them above E000-FFFF.
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function numericCompare(a: number, b: number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
