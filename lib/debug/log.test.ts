/**
 * The debug logger (operator reference, "Runtime debug logging"): DEBUG patterns, runner
 * debug, timestamped lines, and metadata that cannot carry free text by construction.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EVENTS, NAMESPACES } from './events.ts';
import { configureDebug, debugEnabled, debugEvent, debugPattern, formatEvent, setDebugSink } from './log.ts';

const LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z work-queue:([a-z]+) ([a-z_]+)((?: [a-z_]+=[A-Za-z0-9_.\-?]+)*)$/;

function enabledUnder(env: Record<string, string>): string[] {
  configureDebug(env);
  return NAMESPACES.filter((n) => debugEnabled(n));
}

afterEach(() => {
  configureDebug({});
  setDebugSink(null);
});

describe('debug namespaces and patterns', () => {
  it('covers the twelve namespaces of the operator reference', () => {
    for (const n of ['store', 'replay', 'scheduler', 'native', 'dispatch', 'reconciler', 'claims', 'delivery', 'effects', 'memory', 'intents', 'mcp']) {
      expect(NAMESPACES, n).toContain(n);
    }
  });

  it('DEBUG=work-queue:* enables all; a list selects; -ns excludes; comma or whitespace separate', () => {
    expect(enabledUnder({})).toEqual([]);
    expect(enabledUnder({ DEBUG: 'work-queue:*' })).toEqual(NAMESPACES);
    expect(enabledUnder({ DEBUG: 'work-queue:store,work-queue:dispatch' })).toEqual(['store', 'dispatch']);
    expect(enabledUnder({ DEBUG: 'work-queue:store   work-queue:mcp' })).toEqual(['store', 'mcp']);
    expect(enabledUnder({ DEBUG: 'work-queue:*,-work-queue:replay' })).toEqual(NAMESPACES.filter((n) => n !== 'replay'));
    expect(enabledUnder({ DEBUG: 'work-queue:*  -work-queue:replay,-work-queue:store' })).toEqual(NAMESPACES.filter((n) => n !== 'replay' && n !== 'store'));
    expect(enabledUnder({ DEBUG: 'other:*' })).toEqual([]);
  });

  it('ACTIONS_RUNNER_DEBUG=true or RUNNER_DEBUG=1 enables every queue namespace; explicit exclusions still apply', () => {
    expect(enabledUnder({ ACTIONS_RUNNER_DEBUG: 'true' })).toEqual(NAMESPACES);
    expect(enabledUnder({ ACTIONS_RUNNER_DEBUG: 'TRUE' })).toEqual(NAMESPACES);
    expect(enabledUnder({ RUNNER_DEBUG: '1' })).toEqual(NAMESPACES);
    expect(enabledUnder({ RUNNER_DEBUG: '0' })).toEqual([]);
    expect(enabledUnder({ ACTIONS_RUNNER_DEBUG: 'false' })).toEqual([]);
    expect(enabledUnder({ RUNNER_DEBUG: '1', DEBUG: 'work-queue:store' })).toEqual(NAMESPACES);
    expect(enabledUnder({ RUNNER_DEBUG: '1', DEBUG: '-work-queue:replay' })).toEqual(NAMESPACES.filter((n) => n !== 'replay'));
    expect(debugPattern({ RUNNER_DEBUG: '1', DEBUG: 'x:*' })).toBe('x:*,work-queue:*');
  });
});

describe('debug events', () => {
  it('are one timestamped line each, only when the namespace is enabled', () => {
    const lines: string[] = [];
    setDebugSink((l) => lines.push(l));
    configureDebug({ DEBUG: 'work-queue:store' });
    debugEvent('store', 'cas', { outcome: 'conflict', bytes: 812, ms: 4 });
    debugEvent('replay', 'cold', { bytes: 1, commits: 1, ms: 1 });
    expect(lines).toHaveLength(1);
    const m = LINE.exec(lines[0]!);
    expect(m, lines[0]).not.toBeNull();
    expect(m![1]).toBe('store');
    expect(lines[0]).toMatch(/ work-queue:store cas outcome=conflict bytes=812 ms=4$/);
  });

  it('print only declared fields of the declared kind: free text, ids and messages cannot get through', () => {
    const secret = 'ghp_SECRET/acme/queue https://x.test/a';
    // Forced past the types, as a careless call site might: nothing of the string survives.
    const meta = { outcome: secret, bytes: secret, ms: Number.NaN, message: secret, url: secret } as never;
    const text = formatEvent('store', 'cas', meta);
    expect(text).toBe('cas outcome=? bytes=? ms=?');
    expect(formatEvent('delivery', 'settle', { verified: secret, outcome: 'result' } as never)).toBe('settle outcome=result verified=?');
    expect(formatEvent('store', secret as never, {})).toBe('?');
    expect(formatEvent('store', 'constructor' as never, {})).toBe('?');
  });

  it('the catalogue has no free-text field: every field is a number, a flag or a closed list of snake-case words', () => {
    for (const [ns, events] of Object.entries(EVENTS)) {
      for (const [name, fields] of Object.entries(events)) {
        expect(name, `${ns}.${name}`).toMatch(/^[a-z_]+$/);
        for (const [field, kind] of Object.entries(fields as Record<string, unknown>)) {
          if (kind === 'number' || kind === 'flag') continue;
          expect(Array.isArray(kind), `${ns}.${name}.${field}`).toBe(true);
          for (const v of kind as string[]) expect(v, `${ns}.${name}.${field}`).toMatch(/^[A-Za-z_-]+$/);
        }
      }
    }
  });
});
