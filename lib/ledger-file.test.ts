/**
 * `--ledger FILE` reads (lib/ledger-file.ts): the file's exact bytes, a ledger-sized one into
 * memory replay's worker threads share, a pipe read to its end, and the errors a command names.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLedgerFile } from './ledger-file.ts';
import { MIN_BYTES } from './replay/thread-verifier.ts';

const dir = mkdtempSync(join(tmpdir(), 'fairway-ledger-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function body(size: number): Buffer {
  return Buffer.from(Array.from({ length: size }, (_, i) => (i % 100 === 99 ? 0x0a : 0x61 + (i % 26))));
}

describe('readLedgerFile', () => {
  it('reads a ledger-sized file exactly into shared memory, as a plain Uint8Array from its start', async () => {
    const bytes = body(MIN_BYTES + 1234);
    writeFileSync(join(dir, 'large.jsonl'), bytes);
    const read = await readLedgerFile(join(dir, 'large.jsonl'));
    expect(Buffer.compare(Buffer.from(read.buffer, read.byteOffset, read.length), bytes)).toBe(0);
    expect(read.buffer instanceof SharedArrayBuffer).toBe(true);
    expect(read.byteOffset).toBe(0);
    expect(Buffer.isBuffer(read)).toBe(false);
  });

  it('reads a smaller file, and an empty one, exactly into ordinary memory', async () => {
    for (const size of [0, 1, 4095, 70_000]) {
      const bytes = body(size);
      writeFileSync(join(dir, `small-${size}.jsonl`), bytes);
      const read = await readLedgerFile(join(dir, `small-${size}.jsonl`));
      expect(Buffer.compare(Buffer.from(read.buffer, read.byteOffset, read.length), bytes), `size ${size}`).toBe(0);
      expect(read.buffer instanceof SharedArrayBuffer).toBe(false);
    }
  });

  it('reads a named pipe, which has no size, to its end', async () => {
    const fifo = join(dir, 'pipe.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const bytes = body(200_000);
    writeFileSync(join(dir, 'pipe-source'), bytes);
    const writer = spawn('sh', ['-c', `cat "${join(dir, 'pipe-source')}" > "${fifo}"`]);
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    const read = await readLedgerFile(fifo);
    expect(Buffer.compare(Buffer.from(read.buffer, read.byteOffset, read.length), bytes)).toBe(0);
    expect(await exited).toBe(0);
  });

  it('a pipe written a few KiB at a time holds about its bytes in memory, not a buffer per read', async () => {
    const fifo = join(dir, 'slow-pipe.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // 1,024 writes of 4 KiB, 1 ms apart: the reader gets about one write per read.
    const script = `const fs=require('fs');const fd=fs.openSync(${JSON.stringify(fifo)},'w');const b=Buffer.alloc(4096,97);b[4095]=10;for(let i=0;i<1024;i++){fs.writeSync(fd,b);Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,1);}fs.closeSync(fd);`;
    const writer = spawn(process.execPath, ['-e', script]);
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    const before = process.memoryUsage().arrayBuffers;
    const read = await readLedgerFile(fifo);
    const held = process.memoryUsage().arrayBuffers - before;
    expect(await exited).toBe(0);
    expect(read.length).toBe(4 * 1024 * 1024);
    expect(read.every((b, i) => b === (i % 4096 === 4095 ? 10 : 97))).toBe(true);
    expect(held).toBeLessThan(64 * 1024 * 1024);
  });

  it('reads a file longer than its stat size whole (it grew since, or it is a /proc file that reports 0)', async () => {
    const path = '/proc/self/cmdline';
    expect(statSync(path).size).toBe(0);
    const read = await readLedgerFile(path);
    expect(read.length).toBeGreaterThan(0);
    expect(Buffer.compare(Buffer.from(read.buffer, read.byteOffset, read.length), readFileSync(path))).toBe(0);
  });

  it('names a missing file ledger_not_found and a directory ledger_unreadable', async () => {
    await expect(readLedgerFile(join(dir, 'absent.jsonl'))).rejects.toMatchObject({ code: 'ledger_not_found' });
    mkdirSync(join(dir, 'a-directory'));
    await expect(readLedgerFile(join(dir, 'a-directory'))).rejects.toMatchObject({ code: 'ledger_unreadable' });
  });
});
