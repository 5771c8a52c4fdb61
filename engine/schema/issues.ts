/**
 * The one problem a closed-schema validation reports: the first in document order, as a reader
 * meets it. zod lists an object's field problems before its unknown keys and a union's failure
 * as every branch's. Here, for each object enclosing the first problem (outermost first), its
 * unknown keys come first, then its missing properties (known when the parse reports inputs);
 * and a union answers with the branch the value's type selected (the one that did not fail on
 * the value's type).
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

function isPrefix(prefix: readonly PropertyKey[], path: readonly PropertyKey[]): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => path[i] === segment);
}

/** A union's issue as its selected branch's first issue (paths made absolute). */
function unwrap(issue: Issue): Issue {
  if (issue.code !== 'invalid_union') return issue;
  const branch = issue.errors.find((errors) => errors.length > 0 && !(errors[0]!.code === 'invalid_type' && errors[0]!.path.length === 0));
  if (branch === undefined) return issue;
  const inner = firstIssue(branch);
  return { ...inner, path: [...issue.path, ...inner.path] } as Issue;
}

/** A required property that is absent (only recognisable when the parse ran with `reportInput`). */
function isMissing(issue: Issue): boolean {
  return issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined && issue.path.length > 0;
}

export function firstIssue(issues: readonly Issue[]): Issue {
  const first = unwrap(issues[0]!);
  let chosen = first;
  let depth = Infinity;
  let rank = Infinity;
  for (const issue of issues) {
    const objectRank = issue.code === 'unrecognized_keys' ? 0 : isMissing(issue) ? 1 : -1;
    if (objectRank < 0) continue;
    const object = objectRank === 0 ? issue.path : issue.path.slice(0, -1);
    if (!isPrefix(object, first.path)) continue;
    if (object.length < depth || (object.length === depth && objectRank < rank)) {
      chosen = issue;
      depth = object.length;
      rank = objectRank;
    }
  }
  return chosen;
}
