/**
 * A local stand-in for api.github.com (node:http on 127.0.0.1, random port).
 * Every response it sends is checked against GitHub's OpenAPI description;
 * violations are recorded in `violations` for tests to assert on. Faults can be
 * injected per operation: drop the connection (before or after the handler
 * ran) or answer with another status.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkInjectedAnswer, DEFAULT_BLOB_TEXT_LIMIT, GRAPHQL_PATH, handleGraphql, operationName, type FakeGraphqlOptions } from './graphql.ts';
import { githubOpenApi, type OpenApiViolation } from './openapi.ts';
import { errorBody, matchRoute, type FakeResponse, type FakeRoute } from './router.ts';
import { gitRoutes } from './routes-git.ts';
import { repoRoutes } from './routes-repos.ts';
import { FakeGitHubState } from './state.ts';

export interface Fault {
  method: string;
  /** OpenAPI path template of the operation to disturb. */
  path: string;
  /**
   * `drop-after`: run the handler (state changes), then close the connection
   * without answering. `drop-before`: close without running it. `status`:
   * answer `status` (and `body`) instead; with `process`, after running it.
   * `hang`: never answer (the connection stays open until the client gives
   * up); with `process`, after running the handler. `cut`: run the handler, send its
   * status, headers and the first half of its body, then close the connection.
   */
  kind: 'drop-after' | 'drop-before' | 'status' | 'hang' | 'cut';
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** For `status`: this exact body text instead of `body` (e.g. a proxy's HTML page); never validated. */
  raw?: string;
  process?: boolean;
  /** How many matching requests to disturb (default 1). */
  times?: number;
  /** How many matching requests to let through undisturbed first (default 0): e.g. hang the second dispatch POST. */
  after?: number;
  /** For `POST /graphql`: only requests running this operation (its name, e.g. `FairwayPublishLedger`). */
  operation?: string;
}

export interface RequestRecord {
  method: string;
  path: string;
  /** The query string's parameters (e.g. a contents read's `ref`). */
  query?: URLSearchParams;
  template: string | null;
  /** Status sent; 0 when the connection was dropped. */
  status: number;
  authorization: string | undefined;
  /** For `POST /graphql`: the operation's name. */
  operation?: string;
}

export interface FakeGitHubOptions {
  /** Extra routes (e.g. from `routes-issues.ts`); they take precedence over the built-in ones. */
  routes?: FakeRoute[];
  /** Check every response against the OpenAPI description (default true). */
  validate?: boolean;
  /** The GraphQL endpoint's knobs (`POST /graphql`, always validated against GitHub's schema). */
  graphql?: Partial<FakeGraphqlOptions>;
  /**
   * Serve the paths of GitHub Enterprise Server: REST under `/api/v3` (`url` ends with it) and
   * GraphQL at `/api/graphql`; the paths of api.github.com then answer 404 (a violation).
   */
  ghes?: boolean;
}

export interface FakeGitHub {
  /** Base URL for Octokit's `baseUrl`. */
  readonly url: string;
  readonly state: FakeGitHubState;
  /** Responses that do not match the OpenAPI description. Tests assert this stays empty. */
  readonly violations: OpenApiViolation[];
  /** Injected responses whose status GitHub's description does not document (e.g. 502). */
  readonly exempt: OpenApiViolation[];
  readonly requests: RequestRecord[];
  inject(fault: Fault): void;
  /** A lagging replica: every ref created from now on reads as absent for its first `reads` reads (0: off). */
  lagRefReads(reads: number): void;
  /** A slow link: request bodies are taken in at most this many bytes a second from now on (0: off). */
  slowUploads(bytesPerSecond: number): void;
  close(): Promise<void>;
}

/** The answer a `status` fault gives instead of the handler's. */
function faultAnswer(fault: Fault): FakeResponse {
  return { status: fault.status ?? 502, body: fault.body, ...(fault.raw !== undefined && { raw: fault.raw }), ...(fault.headers && { headers: fault.headers }) };
}

export async function createFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const routes = [...(options.routes ?? []), ...gitRoutes, ...repoRoutes];
  const validator = options.validate === false ? null : githubOpenApi();
  const state = new FakeGitHubState();
  const faults: Array<Fault & { left: number; pass: number }> = [];
  const violations: OpenApiViolation[] = [];
  const exempt: OpenApiViolation[] = [];
  const requests: RequestRecord[] = [];
  const graphqlOptions: FakeGraphqlOptions = { blobTextLimit: DEFAULT_BLOB_TEXT_LIMIT, ...options.graphql };
  let baseUrl = '';
  let uploadRate = 0;
  /** The REST and GraphQL paths of the served API (api.github.com's, or GHES's). */
  const restPrefix = options.ghes === true ? '/api/v3' : '';
  const graphqlPath = options.ghes === true ? '/api/graphql' : GRAPHQL_PATH;

  function takeFault(method: string, template: string | null, operation?: string): Fault | undefined {
    const i = faults.findIndex((f) => f.method === method && f.path === template && (f.operation === undefined || f.operation === operation));
    if (i < 0) return undefined;
    const fault = faults[i]!;
    if (fault.pass > 0) {
      fault.pass -= 1;
      return undefined;
    }
    if (--fault.left <= 0) faults.splice(i, 1);
    return fault;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) {
      chunks.push(chunk as Buffer);
      // Not reading on keeps the client's upload waiting (TCP backpressure), as a slow link would.
      if (uploadRate > 0) await sleep(((chunk as Buffer).length / uploadRate) * 1000);
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', baseUrl);
    if (method === 'POST' && url.pathname === graphqlPath) return handleGraphqlRequest(req, res, raw);
    const inApi = url.pathname.startsWith(`${restPrefix}/`);
    const match = inApi ? matchRoute(routes, method, url.pathname.slice(restPrefix.length)) : null;
    const record: RequestRecord = { method, path: url.pathname, query: url.searchParams, template: match?.route.path ?? null, status: 0, authorization: req.headers.authorization };
    requests.push(record);
    const fault = takeFault(method, record.template);
    if (fault?.kind === 'drop-before') return void req.socket.destroy();
    if (fault?.kind === 'hang' && !fault.process) return;

    let response: FakeResponse;
    if (match === null) {
      response = { status: 404, body: errorBody('Not Found') };
      violations.push({ method, path: url.pathname, status: 404, message: 'the fake has no route for this request' });
    } else if (fault?.kind === 'status' && !fault.process) {
      response = faultAnswer(fault);
    } else {
      try {
        const body = raw === '' ? undefined : JSON.parse(raw);
        response = match.route.handle({ method, template: match.route.path, params: match.params, query: url.searchParams, headers: req.headers, body, baseUrl }, state);
      } catch (e) {
        response = { status: 500, body: errorBody(`fake handler failed: ${String(e)}`) };
        violations.push({ method, path: match.route.path, status: 500, message: `handler threw: ${String(e)}` });
      }
      if (fault?.kind === 'drop-after') return void req.socket.destroy();
      if (fault?.kind === 'hang') return;
      if (fault?.kind === 'status') response = faultAnswer(fault);
    }
    record.status = response.status;
    send(res, response, match?.route.path ?? null, method, fault);
  }

  /** `POST /graphql`: validated against GitHub's GraphQL schema instead of the OpenAPI description. */
  function handleGraphqlRequest(req: IncomingMessage, res: ServerResponse, raw: string): void {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const operation = operationName(body);
    const record: RequestRecord = { method: 'POST', path: GRAPHQL_PATH, template: GRAPHQL_PATH, status: 0, authorization: req.headers.authorization, ...(operation !== undefined && { operation }) };
    requests.push(record);
    const fault = takeFault('POST', GRAPHQL_PATH, operation);
    if (fault?.kind === 'drop-before') return void req.socket.destroy();
    if (fault?.kind === 'hang' && !fault.process) return;
    let response: FakeResponse;
    if (fault?.kind === 'status' && !fault.process) {
      response = faultAnswer(fault);
    } else {
      try {
        response = handleGraphql(body, state, graphqlOptions, violations);
      } catch (e) {
        response = { status: 500, body: errorBody(`fake GraphQL handler failed: ${String(e)}`) };
        violations.push({ method: 'POST', path: GRAPHQL_PATH, status: 500, message: `handler threw: ${String(e)}` });
      }
      if (fault?.kind === 'drop-after') return void req.socket.destroy();
      if (fault?.kind === 'hang') return;
      if (fault?.kind === 'status') response = faultAnswer(fault);
    }
    if (fault?.kind === 'status' && response.status === 200 && response.raw === undefined) checkInjectedAnswer(body, response.body, violations);
    record.status = response.status;
    send(res, response, null, 'POST', fault);
  }

  function send(res: ServerResponse, response: FakeResponse, template: string | null, method: string, fault: Fault | undefined): void {
    const injected = fault !== undefined;
    const text = response.raw ?? (response.body === undefined ? '' : JSON.stringify(response.body));
    if (validator !== null && template !== null && !(injected && response.raw !== undefined)) {
      const v = validator.check({ method, path: template, status: response.status, body: text === '' ? undefined : JSON.parse(text) });
      if (v !== null) (injected && /not documented/.test(v.message) ? exempt : violations).push(v);
    }
    res.writeHead(response.status, {
      'content-type': 'application/json; charset=utf-8',
      'x-github-api-version-selected': '2022-11-28',
      'x-github-request-id': `FAKE:${requests.length}`,
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-resource': 'core',
      ...response.headers,
      ...(fault?.kind === 'cut' && { 'content-length': String(Buffer.byteLength(text)) }),
    });
    if (fault?.kind !== 'cut') return void res.end(text);
    const bytes = Buffer.from(text);
    res.write(bytes.subarray(0, bytes.length >> 1), () => res.destroy());
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      violations.push({ method: req.method ?? '?', path: req.url ?? '?', status: 500, message: `fake server failed: ${String(e)}` });
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${restPrefix}`;

  return {
    url: baseUrl,
    state,
    violations,
    exempt,
    requests,
    inject: (fault) => void faults.push({ ...fault, left: fault.times ?? 1, pass: fault.after ?? 0 }),
    lagRefReads: (reads) => void (state.refReadLag = reads),
    slowUploads: (bytesPerSecond) => void (uploadRate = bytesPerSecond),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
