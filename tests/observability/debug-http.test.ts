/**
 * The `store http` debug event of the GitHub client (lib/store/github-client.ts) against a local
 * HTTP server: `status` is what the server answered and 0 when nothing answered (Octokit
 * reports a refused connection as status 500 without a response, which must not read as a
 * GitHub 500); `write` is false for GraphQL queries, which are reads sent as POST.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configureDebug, setDebugSink } from '../../lib/debug/log.ts';
import { asGraphqlRead, createOctokit } from '../../lib/store/github-client.ts';

let server: Server;
let baseUrl: string;
const lines: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/graphql') res.end(JSON.stringify({ data: { viewer: { login: 'x' } } }));
    else {
      res.statusCode = 502;
      res.end(JSON.stringify({ message: 'bad gateway' }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  setDebugSink((l) => lines.push(l.replace(/^\S+ work-queue:/, '')));
  configureDebug({ DEBUG: 'work-queue:store' });
});
afterEach(() => {
  lines.length = 0;
});
afterAll(async () => {
  setDebugSink(null);
  configureDebug({});
  await new Promise((resolve) => server.close(resolve));
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

const http = () => lines.filter((l) => l.startsWith('store http '));

describe('store http debug events', () => {
  it('a request that got no answer has status 0; an answered error keeps its status', async () => {
    const unreachable = createOctokit({ token: 'ghp_debug_http', baseUrl: `http://127.0.0.1:${await closedPort()}`, retries: 0 });
    await expect(unreachable.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' })).rejects.toThrow();
    expect(http()).toEqual([expect.stringMatching(/^store http method=GET status=0 write=false timed_out=false ms=\d+$/)]);

    lines.length = 0;
    const answering = createOctokit({ token: 'ghp_debug_http', baseUrl, retries: 0 });
    await expect(answering.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' })).rejects.toMatchObject({ status: 502 });
    expect(http()).toEqual([expect.stringMatching(/^store http method=GET status=502 write=false /)]);
  });

  it('a GraphQL query is a read (write=false); a GraphQL mutation is a write', async () => {
    const octokit = createOctokit({ token: 'ghp_debug_http', baseUrl, retries: 0, writeIntervalMs: 1 });
    await asGraphqlRead(() => octokit.graphql('query { viewer { login } }'));
    expect(http()).toEqual([expect.stringMatching(/^store http method=POST status=200 write=false /)]);

    lines.length = 0;
    await octokit.graphql('mutation { noop }');
    expect(http()).toEqual([expect.stringMatching(/^store http method=POST status=200 write=true /)]);
  });
});
