import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { consoleRoutes } from './console.ts';
import type { LocalAws } from './emulators.ts';
import { resolveRequestId } from '#shared/http/request-id.ts';
import { createGateway, type LocalRoute, type ProxyHandler, sendGatewayError } from './gateway.ts';
import { loadFunction } from './load-function.ts';

export interface HttpServerOptions {
  port: number;
  host: string;
  /** The HTTP functions to load (every function an API route or the catch-all points to). */
  fns: string[];
  /** PUBLIC_BASE_URL for the functions; default: this server's own base URL, known once it listens. */
  publicBaseUrl?: string;
  /** The AWS services the runner stands in for, with their endpoints: `GET /local/aws`. */
  localAws?: LocalAws;
}

export interface RunningHttpServer {
  port: number;
  /** What `GET /healthz` says: 200 once the whole service is up, 503 before and while stopping. */
  setReady(ready: boolean): void | Promise<void>;
  stop(): Promise<void>;
}

/**
 * The service's HTTP side: the HTTP functions loaded from the modules that are deployed, the gateway in front of
 * them (./gateway.ts), and the requests the runner answers itself (`/healthz`, the console, `/openapi.json`).
 * Runs on the runner's HTTP thread (./http-thread.ts) or, if asked, on the main thread.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const handlers: Record<string, ProxyHandler> = {};

  let ready = false;
  const healthz = getOnly('/healthz', () => ({
    status: ready ? 200 : 503,
    body: ready ? { ok: true } : { ok: false },
  }));
  // The stand-ins a test or a developer points an AWS SDK client at: the runner's own, so no credentials asked.
  const localAwsRoute = options.localAws
    ? [getOnly('/local/aws', () => ({ status: 200, body: options.localAws }))]
    : [];
  // The console, /openapi.json and /docs: static files and the document built from the loaded admin routes.
  // The browser posts knowledge uploads to the S3 stand-in (the upload URLs' origin): the console's CSP allows it.
  const uploadOrigins = process.env.S3_ENDPOINT ? [new URL(process.env.S3_ENDPOINT).origin] : [];
  let baseUrl: string | undefined;
  const server = createGateway({
    handlers,
    // In bundles mode the console function answers them, as on AWS; else the runner does (built on demand).
    localRoutes: [
      healthz,
      ...localAwsRoute,
      ...(process.env.LOCAL_FUNCTIONS === 'bundles' ? [] : consoleRoutes({ uploadOrigins, baseUrl: () => baseUrl })),
    ],
  });
  server.listen(options.port, options.host);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => Promise.reject(error as Error)),
  ]);
  const port = (server.address() as AddressInfo).port;
  // The functions read PUBLIC_BASE_URL on their cold start: listen first (with a free port known), then load them.
  // Until they are loaded /healthz says 503 and the gateway answers 500 "not loaded".
  baseUrl = options.publicBaseUrl ?? `http://${options.host}:${port}`;
  process.env.PUBLIC_BASE_URL = baseUrl;
  await Promise.all(options.fns.map(async (fn) => (handlers[fn] = (await loadFunction(fn)) as ProxyHandler)));
  return {
    port,
    setReady(value) {
      ready = value;
    },
    async stop() {
      ready = false;
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * A JSON resource the runner answers itself, at `path`, for GET (and HEAD, which HTTP lets any GET resource answer);
 * another method is 405 with `Allow: GET`.
 */
function getOnly(path: string, answer: () => { status: number; body: unknown }): LocalRoute {
  return (req, res, url) => {
    if (url.pathname !== path) return false;
    const requestId = resolveRequestId(singleHeader(req.headers['x-request-id']));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      req.resume();
      sendGatewayError(res, 405, 'METHOD_NOT_ALLOWED', `Method ${req.method} is not allowed on ${path}.`, {
        requestId,
        headers: { allow: 'GET' },
      });
      return true;
    }
    const { status, body } = answer();
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': requestId,
      'content-length': Buffer.byteLength(text),
    });
    res.end(req.method === 'HEAD' ? undefined : text);
    return true;
  };
}

/** A header Node gives as a list when repeated: a repeated `x-request-id` is not one valid id. */
function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}
