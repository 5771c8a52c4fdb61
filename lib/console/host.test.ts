import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardHost, hostAllowed, type HostPolicy } from './host.ts';

const local: HostPolicy = { mode: 'local', listenHost: '127.0.0.1' };
const hosted: HostPolicy = { mode: 'hosted', listenHost: '0.0.0.0', publicUrl: 'https://queue.example.org' };

describe('console Host check (issue 18 §6, DNS rebinding)', () => {
  it('local mode answers only for loopback Host values and the literal listen interface', () => {
    for (const h of ['127.0.0.1:3000', '127.0.0.1', 'localhost:3000', 'LOCALHOST', '[::1]:3000', '127.1.2.3:80']) expect(hostAllowed(h, local), h).toBe(true);
    for (const h of ['evil.example', 'evil.example:3000', '127.0.0.1.evil.example', 'localhost.evil.example', 'a@127.0.0.1', '127.0.0.1/x', '', '127.0.0.256', undefined]) {
      expect(hostAllowed(h, local), String(h)).toBe(false);
    }
    expect(hostAllowed('192.168.1.5:3000', { mode: 'local', listenHost: '192.168.1.5' })).toBe(true);
    expect(hostAllowed('[::1]:3000', { mode: 'local', listenHost: '::1' })).toBe(true);
  });

  it('hosted mode also answers for the configured public URL host name, and for nothing else', () => {
    expect(hostAllowed('queue.example.org', hosted)).toBe(true);
    expect(hostAllowed('Queue.Example.Org:443', hosted)).toBe(true);
    expect(hostAllowed('127.0.0.1:3000', hosted)).toBe(true);
    expect(hostAllowed('evil.example', hosted)).toBe(false);
    // The public URL is honoured only in hosted mode.
    expect(hostAllowed('queue.example.org', { ...local, publicUrl: 'https://queue.example.org' })).toBe(false);
  });

  describe('over HTTP', () => {
    let server: Server | null = null;
    afterEach(() => new Promise<void>((resolve) => (server === null ? resolve() : server.close(() => resolve()))));

    function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
      return new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    }

    it('refuses pages and /api/tip under Host: evil.example with 403 host_not_allowed, before the handler runs', async () => {
      let served = 0;
      server = createServer((req, res) => {
        if (!guardHost(req, res, local)) return;
        served++;
        res.end('{"ok":true,"tip":"secret"}');
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
      const port = (server.address() as AddressInfo).port;
      for (const path of ['/', '/api/tip', '/work/w1', '/_next/static/x.js']) {
        const evil = await get(port, path, 'evil.example');
        expect(evil.status, path).toBe(403);
        expect(JSON.parse(evil.body).error.code).toBe('host_not_allowed');
        expect(evil.body).not.toContain('secret');
      }
      expect(served).toBe(0);
      const ok = await get(port, '/api/tip', `127.0.0.1:${port}`);
      expect(ok).toEqual({ status: 200, body: '{"ok":true,"tip":"secret"}' });
      expect((await get(port, '/', `localhost:${port}`)).status).toBe(200);
    });
  });
});
