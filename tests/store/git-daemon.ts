/**
 * A real `git daemon` on 127.0.0.1 serving bare repositories (push enabled),
 * and a TCP proxy in front of it that can drop a push's connection after the
 * daemon has applied it, to exercise the `uncertain` outcome.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await sleep(25);
  }
}

export interface GitDaemon {
  port: number;
  /** The daemon's pid (its upload-pack / receive-pack processes are its children). */
  pid: number;
  /** `git://127.0.0.1:<port>/<name>` for a repository under the base path. */
  url(name: string): string;
  stop(): Promise<void>;
}

export async function startGitDaemon(basePath: string): Promise<GitDaemon> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'git',
    ['daemon', '--export-all', '--enable=receive-pack', `--base-path=${basePath}`, '--listen=127.0.0.1', `--port=${port}`, '--reuseaddr', '--informative-errors'],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await Promise.race([waitForPort(port), exited.then(() => Promise.reject(new Error('git daemon exited at start')))]);
  return {
    port,
    pid: child.pid!,
    url: (name) => `git://127.0.0.1:${port}/${name}`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface DroppingProxy {
  port: number;
  /** Drop the next push's connection once the daemon answers after receiving its pack. */
  dropNextPush(): void;
  /** How many pushes were dropped so far. */
  readonly dropped: number;
  stop(): Promise<void>;
}

export async function startDroppingProxy(targetPort: number): Promise<DroppingProxy> {
  let armed = false;
  let dropped = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let packSent = false;
    client.on('data', (d: Buffer) => {
      if (armed && d.includes('PACK')) packSent = true;
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      if (!packSent) return void client.write(d);
      // The daemon answers only after applying the ref update: swallow the
      // report and hang up on the client.
      armed = false;
      packSent = false;
      dropped++;
      client.destroy();
      upstream.end();
    });
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      a.on('end', () => b.end());
      a.on('error', () => b.destroy());
      a.on('close', () => sockets.delete(a));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    dropNextPush: () => void (armed = true),
    get dropped() {
      return dropped;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
