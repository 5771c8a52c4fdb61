/**
 * Bad values of `--request-id`, `--node-key` and `--execution-ref` are usage errors of the flag
 * (exit 2, `option_invalid`, the message names the flag), found while the options are parsed,
 * before any file or the queue is read, with the engine's own rules (engine/identity
 * `isIdentity`, `isRevision`): not `schema_invalid` at request.id of a refused commit, nor
 * `input_invalid` blamed on the payload file. Real temporary Git repositories, through the
 * real CLI entry point; the branch is unchanged.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { dirCli, fixtureRepo, inputFiles, queueLedger, queueTip } from '../support/fixture-repo.ts';
import { runFairway } from '../support/cli.ts';
import { EXAMPLES } from '../../cli/examples.ts';

let repo: string;
let file: (name: string, value: unknown) => string;

beforeEach(() => {
  repo = fixtureRepo('fairway-optvals-');
  file = inputFiles('fairway-optvals-files-');
});

const fairway = (...args: string[]) => dirCli(repo, ...args);

const ledger = () => queueLedger(repo);

async function bootstrap(): Promise<void> {
  expect((await fairway('--json', '--request-id', 'seed', 'submit-work', '--file', file('seed.json', { a: 1 }), '--node-key', 'seed')).code).toBe(0);
}

/** `args` is refused as a bad value of `flag`: exit 2, option_invalid naming the flag (JSON and human), nothing written. */
async function badValue(flag: string, args: string[]): Promise<void> {
  const before = ledger();
  const j = await fairway('--json', ...args);
  expect(j.code, j.out).toBe(2);
  expect(j.json).toEqual({ ok: false, error: { code: 'option_invalid', message: expect.stringMatching(new RegExp(`^${flag} must be `)) } });
  const h = await fairway(...args);
  expect(h.code).toBe(2);
  expect(h.err).toMatch(new RegExp(`^fairway: option_invalid: ${flag} must be .*\\n\\(see fairway (?:[a-z-]+ )?--help\\)\\n$`));
  expect(ledger()).toEqual(before);
}

const LONG = 'r'.repeat(300);
/** 129 two-byte characters: 258 UTF-8 bytes in 129 UTF-16 units (the bound is on bytes). */
const WIDE = 'é'.repeat(129);

describe('bad flag values are usage errors of the flag (exit 2, option_invalid)', () => {
  it('option_invalid: an empty or over-long --request-id, before or after the command, is the flag\'s error, not schema_invalid of a commit', async () => {
    await bootstrap();
    const p = file('p.json', { b: 2 });
    await badValue('--request-id', ['--request-id', '', 'submit-work', '--file', p]);
    await badValue('--request-id', ['submit-work', '--file', p, '--request-id', '']);
    await badValue('--request-id', ['--request-id', LONG, 'submit-work', '--file', p]);
    await badValue('--request-id', ['--request-id', WIDE, 'dispatch-next']);
    await badValue('--request-id', ['--request-id', 'a\tb', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident']);
    await badValue('--request-id', ['--request-id', '', 'explain']);
  });

  it('option_invalid: a bad --request-id on an absent queue creates nothing, and no file is read first', async () => {
    await badValue('--request-id', ['--request-id', LONG, 'submit-work', '--file', '/nonexistent/payload.json']);
    expect(queueTip(repo)).toBeNull();
  });

  it('option_invalid: an empty or over-long --node-key is the flag\'s error, not input_invalid of the payload file', async () => {
    await bootstrap();
    const p = file('p.json', { b: 2 });
    await badValue('--node-key', ['submit-work', '--file', p, '--node-key', '']);
    await badValue('--node-key', ['submit-work', '--file', p, '--node-key', WIDE]);
    await badValue('--node-key', ['submit-work', '--file', '/nonexistent/payload.json', '--node-key', 'k\n']);
  });

  it('option_invalid: an --execution-ref that is not a full lowercase 40/64-hex revision is the flag\'s error, not input_invalid of the payload file', async () => {
    await bootstrap();
    const p = file('p.json', { b: 2 });
    await badValue('--execution-ref', ['submit-work', '--file', p, '--execution-ref', 'abc']);
    await badValue('--execution-ref', ['submit-work', '--file', p, '--execution-ref', 'A1'.repeat(20)]);
    await badValue('--execution-ref', ['submit-work', '--file', p, '--execution-ref', 'a1'.repeat(21)]);
  });

  it('values at the bounds are accepted: a 256-byte --request-id and --node-key commit; a well-formed unregistered --execution-ref is the protocol\'s verdict', async () => {
    await bootstrap();
    const id = `${'é'.repeat(127)}xy`; // 256 UTF-8 bytes
    const ok = await fairway('--json', '--request-id', id, 'submit-work', '--file', file('p.json', { b: 2 }), '--node-key', id);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.json.request_id).toBe(id);
    const before = ledger();
    const pinned = await fairway('--json', 'submit-work', '--file', file('q.json', { c: 3 }), '--execution-ref', 'b2'.repeat(20));
    expect(pinned.code).toBe(3);
    expect(pinned.json.error.code).toBe('execution_ref_unregistered');
    expect(ledger()).toEqual(before);
  });
});

describe('an option given twice', () => {
  it('option_invalid: a one-value option given twice (global or a command\'s, before or after the command) names both values; nothing is written', async () => {
    await bootstrap();
    const before = ledger();
    for (const args of [
      ['--request-id', 'a', '--request-id', 'b', 'submit-work', '--file', file('p.json', { a: 2 })],
      ['--request-id', 'c', 'submit-work', '--file', file('q.json', { a: 3 }), '--pool', 'default', '--pool', 'other'],
      ['--request-id', 'd', 'submit-work', '--request-id', 'e', '--file', file('r.json', { a: 4 })],
    ]) {
      const j = await fairway('--json', ...args);
      expect(j.code, j.out).toBe(2);
      expect(j.json).toEqual({ ok: false, error: { code: 'option_invalid', message: expect.stringMatching(/^option '--[a-z-]+ <[a-z.]+>' is given twice \("[a-z]+", then "[a-z]+"\); give it once$/) } });
    }
    expect(ledger()).toEqual(before);
  });

  it('an option that collects its values may repeat (issues sync --work-id a --work-id b runs)', async () => {
    await bootstrap();
    expect((await fairway('--json', 'submit-work', '--file', file('second.json', { a: 2 }), '--node-key', 'second')).code).toBe(0);
    const ids = (await fairway('--json', 'state')).json.rows.filter((r: { kind: string }) => r.kind === 'work').map((r: { work_id: string }) => r.work_id);
    expect(ids).toHaveLength(2);
    const r = await fairway('--json', 'issues', 'sync', '--dry-run', '--work-id', ids[0], '--work-id', ids[1]);
    // Parsed and run (both Work checked): the fixture's queue has no Issue projection configured.
    expect([r.code, r.json]).toEqual([0, expect.objectContaining({ ok: true, enabled: false })]);
    // Each value is checked: one that names no Work is unknown_work, projection off or not.
    const unknown = await fairway('--json', 'issues', 'sync', '--dry-run', '--work-id', ids[0], '--work-id', 'bbbbbbbb');
    expect([unknown.code, unknown.json.error.code]).toEqual([2, 'unknown_work']);
  });
});

describe('an empty value of an option that names something', () => {
  it('option_invalid: an empty --pool, --graph-id, --worker-profile, --work-id, --dispatch-id, --graph or --generation is the flag\'s error, before any file or the queue is read; nothing is written', async () => {
    await bootstrap();
    const p = file('p.json', { b: 2 });
    // Before: the payload file's input_invalid (--pool, --worker-profile), a commit's schema_invalid
    // (--graph-id), control_invalid (--generation), or "pool  is not configured".
    await badValue('--pool', ['submit-work', '--file', p, '--pool', '']);
    await badValue('--pool', ['submit-work', '--file', '/nonexistent/payload.json', '--pool', '']);
    await badValue('--graph-id', ['submit-work', '--file', p, '--graph-id', '']);
    await badValue('--worker-profile', ['submit-work', '--file', p, '--worker-profile', '']);
    await badValue('--pool', ['dispatch-next', '--pool', '']);
    await badValue('--pool', ['explain', '--pool', '']);
    await badValue('--pool', ['next', '--pool', '']);
    await badValue('--work-id', ['inspect', '--work-id', '']);
    await badValue('--dispatch-id', ['evidence', '--dispatch-id', '']);
    await badValue('--graph', ['state', '--graph', '']);
    await badValue('--generation', ['control', '--name', 'credential_generation', '--generation', '', '--reason', 'rotation']);
  });

  it('option_invalid: an empty global --ledger, --dir or --repo names the flag, not ledger_not_found of a file called ""', async () => {
    for (const [flag, args] of [
      ['--ledger', ['--ledger', '', 'verify']],
      ['--dir', ['--dir', '', 'verify']],
      ['--repo', ['-R', '', 'state']],
    ] as const) {
      let out = '';
      const code = await runFairway(['--json', ...args], { out: (s) => (out += s), err: () => undefined });
      expect(code, out).toBe(2);
      expect(JSON.parse(out)).toEqual({ ok: false, error: { code: 'option_invalid', message: `${flag} must be a non-empty value (an empty one names nothing)` } });
    }
  });

  it('an empty --fairness-key (the Policy\'s default key) and an empty state --search (everything) are still accepted', async () => {
    await bootstrap();
    const r = await fairway('--json', 'submit-work', '--file', file('k.json', { k: 1 }), '--fairness-key', '', '--node-key', 'default-key');
    expect(r.code, r.out).toBe(0);
    const s = await fairway('--json', 'state', '--search', '');
    expect(s.code, s.out).toBe(0);
    expect(JSON.stringify(s.json)).toContain('default-key');
    // A command's option written with = keeps a value that starts with --.
    const dashed = await fairway('--json', 'state', '--search=--verbose');
    expect(dashed.code, dashed.out).toBe(0);
  });
});

describe('conflicting options', () => {
  it('option_invalid: control --name grants_paused with --generation is refused, not the generation silently dropped; nothing is written', async () => {
    await bootstrap();
    const before = ledger();
    const j = await fairway('--json', 'control', '--name', 'grants_paused', '--paused', 'true', '--generation', 'g1', '--reason', 'incident');
    expect(j.code, j.out).toBe(2);
    expect(j.json).toEqual({ ok: false, error: { code: 'option_invalid', message: 'grants_paused takes --paused true|false (and no --generation)' } });
    expect(ledger()).toEqual(before);
    const ok = await fairway('--json', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident');
    expect(ok.code, ok.out).toBe(0);
  });
});

describe('values and combinations a command cannot act on as given (from an audit of bad input)', () => {
  /** `args` (after --json) exits 2 with `code`, its message matching `message`; nothing is written. */
  async function refused(args: string[], code: string, message: RegExp): Promise<void> {
    const before = ledger();
    const j = await fairway('--json', ...args);
    expect(j.code, j.out).toBe(2);
    expect(j.json.error.code, j.out).toBe(code);
    expect(j.json.error.message).toMatch(message);
    expect(ledger()).toEqual(before);
  }

  it('invalid_as_of: an --as-of past the last time a Date holds is a usage error, not an internal error while printing; the last one prints', async () => {
    await bootstrap();
    for (const cmd of [['next', '--pool', 'default'], ['explain', '--pool', 'default']]) {
      await refused([...cmd, '--as-of', '9007199254740991'], 'invalid_as_of', /^--as-of must be Unix milliseconds, an integer 0\.\.8640000000000000, not "9007199254740991"$/);
      const last = await fairway(...cmd, '--as-of', '8640000000000000');
      expect(last.code, last.err).toBe(0);
      expect(last.out).toContain('+275760-09-13T00:00:00.000Z');
    }
    // replay (read) follows the same rule and code, `now` besides.
    await refused(['replay', '--as-of', '9007199254740991'], 'invalid_as_of', /^--as-of must be Unix milliseconds/);
    await refused(['replay', '--as-of', ' 5'], 'invalid_as_of', /^--as-of must be Unix milliseconds/);
    expect((await fairway('replay', '--as-of', 'now')).code).toBe(0);
    expect((await fairway('replay', '--as-of', '8640000000000000')).code).toBe(0);
  });

  it('option_invalid: a --graph-id, --generation or --epoch that is not an identity is the flag\'s error, not a commit\'s schema_invalid or control_invalid', async () => {
    await bootstrap();
    const p = file('p.json', { b: 2 });
    await badValue('--graph-id', ['submit-work', '--file', p, '--graph-id', 'a\tb']);
    await badValue('--graph-id', ['submit-work', '--file', p, '--graph-id', 'g'.repeat(300)]);
    await badValue('--graph-id', ['submit-graph', '--file', file('g.json', { nodes: [{ node_key: 'a', payload: {} }] }), '--graph-id', '\x7f']);
    await badValue('--generation', ['control', '--name', 'credential_generation', '--generation', 'g\x01', '--reason', 'rotation']);
    await badValue('--epoch', ['policy', '--from-config', '--epoch', 'e\x01', '--reason', 'upgrade']);
  });

  it('option_invalid: explain --claim-id / --request-id (historical) with --as-of or --work-id is refused, not the live options silently dropped; without --pool they name it', async () => {
    await bootstrap();
    await refused(['--request-id', 'seed', 'explain', '--as-of', '12'], 'option_invalid', /^--as-of goes with --pool \(a live explanation\)/);
    await refused(['--request-id', 'seed', 'explain', '--work-id', 'abcdef12', '--as-of', '12'], 'option_invalid', /^--work-id and --as-of go with --pool/);
    await refused(['explain', '--claim-id', 'c_0123456789', '--work-id', 'abcdef12'], 'option_invalid', /^--work-id goes with --pool/);
    // No selector at all: the missing --pool is named, not a list of selectors that leaves --work-id out.
    await refused(['explain', '--work-id', 'abcdef12'], 'option_invalid', /^--work-id goes with --pool \(a live explanation\): add --pool <name>$/);
    await refused(['explain', '--work-id', 'abcdef12', '--as-of', '12'], 'option_invalid', /^--work-id and --as-of go with --pool \(a live explanation\): add --pool <name>$/);
  });

  it('option_invalid: an option followed by another option (--request-id --json) is refused, not a request named "--json" committed', async () => {
    await bootstrap();
    const p = file('p.json', { b: 2 });
    await refused(['--request-id', '--json', 'submit-work', '--file', p], 'option_invalid', /^--request-id must be given a value, not the option "--json"/);
    await refused(['--ledger', '--json', 'stats'], 'option_invalid', /^--ledger must be given a value, not the option "--json"/);
    // A command's own option: commander finds the value missing itself.
    await refused(['submit-work', '--file', p, '--pool', '--json'], 'option_missing', /^option '--pool <name>' argument missing$/);
  });

  it('reason_invalid: an empty --reason keeps its own code and message', async () => {
    await bootstrap();
    await refused(['control', '--name', 'grants_paused', '--paused', 'true', '--reason', ''], 'reason_invalid', /^--reason must be a reason code/);
  });

  it('source_conflict: --ledger with an explicit --branch; option_invalid: completion --json', async () => {
    const demo = file('empty.jsonl', '');
    await refused(['--ledger', demo, '--branch', 'other', 'stats'], 'source_conflict', /--branch names a queue branch/);
    await refused(['completion', 'bash'], 'option_invalid', /^completion prints a shell script and has no --json output$/);
    const script = await fairway('completion', 'bash');
    expect(script.code).toBe(0);
    expect(script.out).toContain('complete');
  });

  it('principal_invalid, option_invalid and store_options_invalid name the variable a bad value came from (FAIRWAY_PRINCIPAL, PORT, GH_HOST), not a flag that was not given or a URL built from it', async () => {
    await bootstrap();
    const saved = { principal: process.env.FAIRWAY_PRINCIPAL, port: process.env.PORT, host: process.env.GH_HOST };
    try {
      process.env.FAIRWAY_PRINCIPAL = 'abc';
      await refused(['submit-work', '--file', file('p.json', { b: 2 })], 'principal_invalid', /^FAIRWAY_PRINCIPAL must be a positive decimal id, not "abc"$/);
      await refused(['--principal', 'xyz', 'submit-work', '--file', file('q.json', { b: 3 })], 'principal_invalid', /^--principal must be a positive decimal id, not "xyz"$/);
      delete process.env.FAIRWAY_PRINCIPAL;
      process.env.PORT = 'abc';
      await refused(['console', '--demo'], 'option_invalid', /^PORT \(the --port default\) must be an integer 0\.\.65535, not "abc"$/);
      await refused(['console', '--demo', '--port', 'xyz'], 'option_invalid', /^--port must be an integer 0\.\.65535, not "xyz"$/);
      delete process.env.PORT;
      process.env.GH_HOST = 'bad host';
      let out = '';
      const code = await runFairway(['--json', '-R', 'octo-org/app', 'state'], { out: (t) => (out += t), err: () => undefined });
      expect([code, JSON.parse(out).error]).toEqual([2, { code: 'store_options_invalid', message: 'GH_HOST must be a host name like github.example.com, not "bad host"' }]);
    } finally {
      for (const [name, value] of [['FAIRWAY_PRINCIPAL', saved.principal], ['PORT', saved.port], ['GH_HOST', saved.host]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('state past its last row says so; the help examples use distinct request ids (run one after another, none is a request_id_conflict)', async () => {
    await bootstrap();
    const far = await fairway('state', '--offset', '1000000');
    expect(far.code, far.err).toBe(0);
    expect(far.out).toMatch(/no rows at offset 1000000 of \d+/);
    const events = await fairway('--request-id', 'seed', 'trace', '--offset', '1000');
    expect(events.code, events.err).toBe(0);
    expect(events.out).toMatch(/^no events at offset 1000 of \d+$/m);
    const ids = Object.values(EXAMPLES).flatMap((e) => [...e.matchAll(/--request-id (\S+)/g)].map((m) => m[1]!));
    expect(ids.length).toBeGreaterThan(1);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
