/**
 * The replay progress lines drawn on the terminal and not cleared yet (cli/progress.ts draws
 * them). Kept apart from the drawing so the command wrapper (cli/context.ts, on every command's
 * start-up path) clears them without loading anything else.
 */
const drawn = new Set<() => void>();

/** Records the clear of a line just drawn; the clear removes itself with `lineCleared`. */
export function lineDrawn(clear: () => void): void {
  drawn.add(clear);
}

export function lineCleared(clear: () => void): void {
  drawn.delete(clear);
}

/** Clears every progress line still drawn (before the CLI prints a failure or a debug event). */
export function clearProgress(): void {
  for (const clear of [...drawn]) clear();
}
