/**
 * The staged-intent directory: the only place the agent-side MCP server
 * writes. One immutable JSON file per intent (`<seq>-<intent_id>.intent.json`,
 * schema `fairway.intent/1`), created atomically and exclusively. Intent ids
 * are random; the trusted processor binds them to stable request ids.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { LINE_BYTES } from '../../engine/codec/index.ts';
import { isProtocolError, ProtocolError } from '../../engine/errors.ts';
import { INTENT_SCHEMA, intentFingerprint, parseIntentRecord, type IntentRecord } from '../../engine/intents/records.ts';
import type { ClaimScope } from '../../engine/intents/scope.ts';
import type { StagingTool } from '../../engine/intents/schemas.ts';
import { parseJsonFile, readAgentFile, writeFileAtomic } from './files.ts';

const SUFFIX = '.intent.json';
/**
 * The largest intent file written or read: twice a ledger line's limit (codec LINE_BYTES). Files
 * are written compact, so an input whose commit fits one ledger line fits with room to spare.
 */
export const INTENT_FILE_MAX_BYTES = 2 * LINE_BYTES;

export interface UnreadableIntent {
  file: string;
  code: string;
  message: string;
}

export class IntentStore {
  /** Serializes staging inside one process (sequence numbers stay dense). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly dir: string) {}

  /** Every intent file, verified; unreadable or edited files are reported, never guessed at. */
  async list(): Promise<{ records: IntentRecord[]; invalid: UnreadableIntent[] }> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { records: [], invalid: [] };
      // Not a directory, no permission, ...: the caller's setting, named, never an internal error.
      if (typeof code === 'string') throw new ProtocolError('intents_unreadable', `the intent directory ${this.dir} cannot be read: ${code}`, {}, { path: this.dir, errno: code });
      throw e;
    }
    const records: IntentRecord[] = [];
    const invalid: UnreadableIntent[] = [];
    for (const file of names.filter((n) => n.endsWith(SUFFIX)).sort()) {
      try {
        const path = join(this.dir, file);
        const record = parseIntentRecord(parseJsonFile(await readAgentFile(path, 'intent', INTENT_FILE_MAX_BYTES), path, 'intent'));
        if (file !== fileName(record)) {
          invalid.push({ file, code: 'intent_invalid', message: `file name does not match intent ${record.intent_id}` });
        } else records.push(record);
      } catch (e) {
        if (!isProtocolError(e)) throw e;
        invalid.push({ file, code: e.code, message: e.message });
      }
    }
    records.sort((a, b) => a.seq - b.seq || (a.intent_id < b.intent_id ? -1 : 1));
    return { records, invalid };
  }

  /**
   * Writes one new intent bound to `snapshotId`; returns its record. `existing`, run on the staged
   * records in the same serialized step (so two concurrent calls cannot both pass it), returns an
   * earlier record that already stands for this one (nothing is written) or throws to refuse it.
   */
  stage(input: { snapshotId: string; tool: StagingTool; input: Record<string, unknown>; scope: ClaimScope | null; now: number; existing?: (records: readonly IntentRecord[]) => IntentRecord | undefined }): Promise<IntentRecord> {
    const next = this.queue.then(async () => {
      await ensureDirectory(this.dir, 'intents_unwritable', 'the intent directory');
      const { records, invalid } = await this.list();
      const earlier = input.existing?.(records);
      if (earlier !== undefined) return earlier;
      const seq = Math.max(0, ...records.map((r) => r.seq)) + invalid.length + 1;
      const body: Omit<IntentRecord, 'fingerprint'> = {
        schema: INTENT_SCHEMA,
        intent_id: `i_${randomBytes(16).toString('hex')}`,
        seq,
        tool: input.tool,
        snapshot_id: input.snapshotId,
        staged_at: input.now,
        input: input.input,
        scope: input.scope,
      };
      const record = parseIntentRecord({ ...body, fingerprint: intentFingerprint(body) });
      // Compact: an indented file of a deeply nested input can be many times its JSON (a 150-node
      // submit of 16 KB payloads: 25 MB indented), and the processor reads at most INTENT_FILE_MAX_BYTES.
      const text = `${JSON.stringify(record)}\n`;
      if (Buffer.byteLength(text) > INTENT_FILE_MAX_BYTES) {
        throw new ProtocolError('resource_limit', `the intent is ${Buffer.byteLength(text)} bytes, more than the ${INTENT_FILE_MAX_BYTES} an intent file can be`, {}, { limit: 'intent_bytes', max: INTENT_FILE_MAX_BYTES });
      }
      await writeFileAtomic(join(this.dir, fileName(record)), text, 'wx');
      return record;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function fileName(record: IntentRecord): string {
  return `${String(record.seq).padStart(6, '0')}-${record.intent_id}${SUFFIX}`;
}

/**
 * Creates `dir` (and its parents) when absent and checks it is writable; a file in its place, no
 * permission, a read-only directory, ... is `code`
 * (a ProtocolError naming the path and errno), never an internal error.
 */
export async function ensureDirectory(dir: string, code: string, what: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await access(dir, constants.W_OK | constants.X_OK); // an existing read-only directory is refused too
  } catch (e) {
    const errno = (e as NodeJS.ErrnoException).code;
    if (typeof errno !== 'string') throw e;
    throw new ProtocolError(code, `${what} ${dir} cannot be created: ${errno}`, {}, { path: dir, errno });
  }
}
