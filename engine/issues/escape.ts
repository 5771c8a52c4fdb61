/**
 * Escaping of submitted text for generated Issue titles, bodies and comments. Everything a
 * producer or agent chose (payload fields, node keys, graph ids, fairness keys, reason codes)
 * goes through here; only links the projector builds itself from validated identities are
 * written raw.
 *
 * Markdown text: the value becomes one inline code span. Inside a code span GitHub renders
 * no Markdown links or images, no autolinks, no `@mentions`, no `#references` and no HTML.
 * The span cannot be closed early: backticks are replaced by U+02CB (ˋ), line breaks and
 * other whitespace runs become one space, control characters are dropped, and the value is
 * cut to a bound. An empty value renders as `(empty)`.
 *
 * Titles are plain text on GitHub (never rendered), but they are shown in notifications and
 * lists: controls are dropped, whitespace collapsed, the length bounded.
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]/gu; // eslint-disable-line no-control-regex

function clean(value: string, max: number): string {
  const flat = value.replace(/\s+/gu, ' ').replace(CONTROLS, '').trim();
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}

/** One inline code span holding `value` verbatim-but-inert. */
export function inlineText(value: string, max = 200): string {
  const text = clean(value, max).replace(/`/g, 'ˋ');
  if (text === '') return '(empty)';
  // A span whose content starts or ends with a space is padded, so GitHub keeps it literal.
  return `\` ${text} \``;
}

/** A plain-text Issue title (GitHub limits titles to 256 characters). */
export function plainTitle(value: string, max = 200): string {
  return clean(value, max) || '(untitled)';
}

/** Repository `owner/name` usable in a generated URL, or null. */
export function safeRepository(value: string): string | null {
  return /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/.test(value) && !value.endsWith('/.') && !value.includes('/..') ? value : null;
}

/** A decimal id or a hex Git object id usable in a generated URL, or null. */
export function safeToken(value: string): string | null {
  return /^(?:[1-9][0-9]{0,19}|[0-9a-f]{40}|[0-9a-f]{64})$/.test(value) ? value : null;
}
