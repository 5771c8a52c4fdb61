/**
 * aw.json settings through the closed zod schema and its error map: with several problems,
 * the first in document order is the one reported (an unknown property before its object's
 * field problems; the branch of `issues` the value's type selected), and maps keyed by user
 * input keep every member as an own property.
 */
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../../engine/errors.ts';
import { readAwJsonSettings } from './aw.ts';
import { WorkQueueSettingsSchema } from './settings-schema.ts';

function problem(workQueue: string): { path?: string; message: string } {
  try {
    readAwJsonSettings(new TextEncoder().encode(`{"work_queue": ${workQueue}}`));
  } catch (e) {
    if (isProtocolError(e)) return { path: e.path, message: e.message };
    throw e;
  }
  throw new Error('accepted');
}

describe('aw.json settings schema', () => {
  it('reports the first problem in document order', () => {
    expect(problem('{"x": 1, "concurrency": 0}').path).toBe('work_queue.x');
    expect(problem('{"pools": {"gpu": {"x": 1, "concurrency": 0}}, "y": 1}').path).toBe('work_queue.y');
    expect(problem('{"retry": {"x": 1, "max_attempts": 0}}').path).toBe('work_queue.retry.x');
    expect(problem('{"concurrency": 0, "mode": 1}')).toEqual({ path: 'work_queue.concurrency', message: 'work_queue.concurrency: must be an integer in 1..4096' });
    expect(problem('{"issues": {"label": 7, "x": 1}}').path).toBe('work_queue.issues.x');
    expect(problem('{"issues": {"label": 7}}')).toEqual({ path: 'work_queue.issues.label', message: 'work_queue.issues.label: expected a string, found the number 7' });
    expect(problem('{"class_weights": [8, 4, 2, 1, 16.5]}').message).toBe('work_queue.class_weights[4]: expected an integer, found the number 16.5');
  });

  it('keeps fairness keys and pool names named like Object.prototype members as own properties', () => {
    const parsed = WorkQueueSettingsSchema.parse({ accounting_weights: JSON.parse('{"__proto__": 2, "constructor": 3}'), pools: JSON.parse('{"__proto__": {"concurrency": 2}, "toString": {}}') });
    expect(Object.getPrototypeOf(parsed.accounting_weights)).toBeNull();
    expect(Object.entries(parsed.accounting_weights!)).toEqual([['__proto__', 2], ['constructor', 3]]);
    expect(Object.keys(parsed.pools!)).toEqual(['__proto__', 'toString']);
    expect(Object.hasOwn(parsed.pools!, '__proto__')).toBe(true);
  });
});
