/** Ink's key events → the reducer's key presses (none: not a key the browser uses). */
import type { Key } from 'ink';
import type { KeyPress } from './state.ts';

/**
 * Ink delivers several characters that arrive together (typed fast, pasted,
 * or sent by tmux) as one input: they become one key press per character, each
 * marked `burst`, so a pasted `y` never confirms a review.
 */
export function fromInk(input: string, key: Key): KeyPress[] {
  const one = single(input, key);
  if (one === null) return [];
  if (one.name !== 'char') return [one];
  const chars = [...(one.char ?? '')];
  return chars.length === 1 ? [{ name: 'char', char: chars[0]! }] : chars.map((char) => ({ name: 'char', char, burst: true }));
}

function single(input: string, key: Key): KeyPress | null {
  if (key.eventType === 'release') return null;
  if (key.upArrow) return { name: 'up' };
  if (key.downArrow) return { name: 'down' };
  if (key.leftArrow) return { name: 'left' };
  if (key.rightArrow) return { name: 'right' };
  if (key.pageUp) return { name: 'pageup' };
  if (key.pageDown) return { name: 'pagedown' };
  if (key.home) return { name: 'home' };
  if (key.end) return { name: 'end' };
  if (key.tab) return { name: 'tab' };
  if (key.return) return { name: 'enter' };
  if (key.escape) return { name: 'escape' };
  if (key.backspace || key.delete) return { name: 'backspace' };
  if (key.ctrl || key.meta || input.length === 0) return null;
  return { name: 'char', char: input };
}
