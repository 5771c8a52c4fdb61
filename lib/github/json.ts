/**
 * Lossless reading of GitHub response bodies (spec 7.8, 7.16: "Preserve run/resource IDs
 * as lossless canonical strings, not floating-point API integers"). Raw body text is
 * parsed with lossless-json (duplicate keys rejected), so every number arrives as its
 * exact source text; zod schemas then turn ids into canonical decimal strings and small
 * counters into safe integers. `JSON.parse` never sees a GitHub body here.
 */
import { isLosslessNumber, parse, type LosslessNumber } from 'lossless-json';
import { z } from 'zod';
import { ProtocolError } from '../../engine/errors.ts';
import { isDecimalId } from '../../engine/identity/index.ts';

/** Parses response text; malformed JSON is `github_response_invalid`. */
export function parseGitHubJson(text: string, what: string): unknown {
  try {
    return parse(text);
  } catch (e) {
    throw new ProtocolError('github_response_invalid', `${what}: the response body is not JSON (${(e as Error).message})`);
  }
}

const Lossless = z.custom<LosslessNumber>((v) => isLosslessNumber(v), { message: 'expected a JSON number' });

/** An int64 GitHub id → its canonical positive decimal string (exact above 2^53). */
export const GitHubId = Lossless.transform((n, ctx) => {
  const text = n.value;
  if (!isDecimalId(text)) {
    ctx.addIssue({ code: 'custom', message: `expected a positive integer id, found ${text}` });
    return z.NEVER;
  }
  return text;
});

/** A small non-negative integer (counts, attempt numbers, issue numbers). */
export const GitHubInt = Lossless.transform((n, ctx) => {
  const text = n.value;
  const value = Number(text);
  if (!/^(?:0|[1-9][0-9]*)$/.test(text) || !Number.isSafeInteger(value)) {
    ctx.addIssue({ code: 'custom', message: `expected a non-negative safe integer, found ${text}` });
    return z.NEVER;
  }
  return value;
});

/** Validates a lossless-parsed value; a mismatch is `github_response_invalid` with the path. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map(String).join('.') || '(root)';
  throw new ProtocolError('github_response_invalid', `${what}: unexpected response at ${path}: ${issue.message}`, {}, { path });
}
