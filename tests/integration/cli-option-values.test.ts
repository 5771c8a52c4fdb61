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
    const r = await fairway('--json', 'issues', 'sync', '--dry-run', '--work-id', 'aaaaaaaa', '--work-id', 'bbbbbbbb');
    // Parsed and run: the fixture's queue has no Issue projection configured.
    expect([r.code, r.json]).toEqual([0, expect.objectContaining({ ok: true, enabled: false })]);
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
