import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { matchRoute } from '#shared/contract/route-match.ts';
import { binaryMediaTypes, fallbackFunction, routes, type RouteDefinition } from '#shared/contract/routes.ts';
import { invokeWithTimeout, lambdaContext, LambdaTimeoutError } from './lambda-context.ts';
import { isStreamingHandler, serveStreaming, type StreamingHandler } from './response-streaming.ts';
import { signalWork } from './work-signal.ts';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A request the gateway answers itself (the local `/healthz`, later the console); undefined to pass it on. */
export type LocalRoute = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;

/** Largest body the local gateway buffers: the 25 MB extract upload plus multipart framing. */
export const LOCAL_MAX_BODY_BYTES = 27 * 1024 * 1024;

/**
 * How long a client may take to send what it sends (nothing stalls the service for free). A request
 * whose headers are not complete 15 s after its first byte, whose body stops for 15 s, or that is not all received
 * within 5 minutes is answered 408 REQUEST_TIMEOUT and its connection closed. A browser or SDK sends headers in one
 * packet and a body without pauses: the idle limit never cuts a steady upload however slow the machine (25 MB
 * over loopback takes well under a second), and the 5-minute bound, Node's default, still lets a 25 MB body in at
 * 0.7 Mbit/s. Node checks the header and whole-request limits once per second.
 */
export const GATEWAY_TIMEOUTS = {
  headersMs: 15_000,
  bodyIdleMs: 15_000,
  requestMs: 300_000,
  checkEveryMs: 1_000,
} as const;

export interface GatewayOptions {
  handlers: Record<string, ProxyHandler>;
  localRoutes?: LocalRoute[];
}

/**
 * The local stand-in for API Gateway (REST, Lambda proxy integration): each request becomes the proxy event the
 * deployed API would send (binary media types base64-encoded, others as UTF-8 text), goes to the same handler
 * module that is deployed, within the route's timeout, and the handler's result becomes the HTTP response.
 * Unmatched paths and methods go to the fallback function, as the API's catch-all does on AWS. A function that
 * streams its response (`awslambda.streamifyResponse`, see ./response-streaming.ts) is answered as it writes, as
 * the REST API does for an integration whose response transfer mode is STREAM.
 */
export function createGateway(options: GatewayOptions): Server {
  const server = createServer(
    {
      headersTimeout: GATEWAY_TIMEOUTS.headersMs,
      requestTimeout: GATEWAY_TIMEOUTS.requestMs,
      connectionsCheckingInterval: GATEWAY_TIMEOUTS.checkEveryMs,
    },
    (req, res) => {
      handle(req, res, options).catch((error) => {
        if (error instanceof BodyTimeoutError) return sendRequestTimeout(res);
        if (!res.headersSent) sendGatewayError(res, 500, 'INTERNAL_ERROR', 'The gateway failed to handle the request.');
        else res.destroy(error as Error);
      });
    },
  );
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  return server;
}

class BodyTimeoutError extends Error {}

/** 408 with the contract's error body, then the connection closes (the rest of the body is never read). */
function sendRequestTimeout(res: ServerResponse): void {
  if (res.headersSent) return void res.destroy();
  res.shouldKeepAlive = false;
  sendGatewayError(res, 408, 'REQUEST_TIMEOUT', 'The request did not arrive in time.', {
    headers: { connection: 'close' },
  });
  res.once('finish', () => res.socket?.destroySoon());
}

/**
 * What Node answers a request it could not parse or that ran out of time (headers or whole-request limit), with the
 * contract's error body for the time limits; Node's own bare answers for the rest.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const body = JSON.stringify({
      success: false,
      error: 'REQUEST_TIMEOUT',
      message: 'The request did not arrive in time.',
      requestId: randomUUID(),
    });
    socket.end(
      `HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    return;
  }
  if (error.code === 'ECONNRESET') return void socket.destroy();
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
}

async function handle(req: IncomingMessage, res: ServerResponse, options: GatewayOptions): Promise<void> {
  const arrivedAt = Date.now();
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  for (const local of options.localRoutes ?? []) if (await local(req, res, url)) return;

  const match = matchRoute(routes, req.method ?? 'GET', url.pathname);
  const route: RouteDefinition | undefined = match.kind === 'route' ? match.route : undefined;
  const fn = route?.fn ?? fallbackFunction;
  const handler = options.handlers[fn];
  if (!handler) return sendGatewayError(res, 500, 'INTERNAL_ERROR', `Function ${fn} is not loaded.`);
  // A waiting sweeper goes back to its pace (./scheduler.ts): this request may leave it work.
  signalWork();

  const maxBodyBytes = route?.maxBodyBytes ?? LOCAL_MAX_BODY_BYTES;
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBodyBytes) {
    req.resume();
    return sendGatewayError(res, 413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.');
  }
  const body = await readBody(req, maxBodyBytes);
  if (body === 'too-large') return sendGatewayError(res, 413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.');

  const event = toProxyEvent(req, url, body, route, match.kind === 'route' ? match.pathParameters : null, arrivedAt);
  const timeoutSeconds = route?.timeoutSeconds ?? 10;
  if (isStreamingHandler(handler)) return streamResult(res, handler as unknown as StreamingHandler, event, fn, route);
  let result: APIGatewayProxyResult;
  try {
    result = await invokeWithTimeout(
      () => handler(event, lambdaContext(fn, timeoutSeconds, route?.memoryMb ?? 256)),
      timeoutSeconds,
      { functionName: fn, event },
    );
  } catch (error) {
    if (error instanceof LambdaTimeoutError)
      return sendGatewayError(res, 504, 'GATEWAY_TIMEOUT', 'The endpoint did not answer in time.');
    console.error(`[gateway] ${fn} failed:`, error);
    return sendGatewayError(res, 502, 'INTERNAL_ERROR', 'Internal server error.');
  }
  writeResult(res, result);
}

async function streamResult(
  res: ServerResponse,
  handler: StreamingHandler,
  event: APIGatewayProxyEvent,
  fn: string,
  route: RouteDefinition | undefined,
): Promise<void> {
  const timeoutSeconds = route?.timeoutSeconds ?? 10;
  try {
    await invokeWithTimeout(
      () => serveStreaming(handler, event, lambdaContext(fn, timeoutSeconds, route?.memoryMb ?? 256), res),
      timeoutSeconds,
      { functionName: fn, event },
    );
  } catch (error) {
    // Once the status line is out, the only way left to say "failed" is to cut the connection, as API Gateway does.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof LambdaTimeoutError)
      return sendGatewayError(res, 504, 'GATEWAY_TIMEOUT', 'The endpoint did not answer in time.');
    if (res.destroyed) return;
    console.error(`[gateway] ${fn} failed:`, error);
    return sendGatewayError(res, 502, 'INTERNAL_ERROR', 'Internal server error.');
  }
}

/**
 * The body, read up to `limit` bytes. A pause of {@link GATEWAY_TIMEOUTS}`.bodyIdleMs` stops the reading and throws
 * BodyTimeoutError (the socket stays open for the 408).
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let idle: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(idle);
      req.off('data', onData).off('end', onEnd).off('error', onError);
    };
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        done();
        req.pause();
        reject(new BodyTimeoutError('the body stopped arriving'));
      }, GATEWAY_TIMEOUTS.bodyIdleMs);
    };
    const onData = (chunk: Buffer) => {
      arm();
      size += chunk.length;
      if (size > limit) {
        done();
        req.resume();
        resolve('too-large');
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
    arm();
  });
}

function isBinary(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return binaryMediaTypes.some((t) => t === type || (t.endsWith('/*') && type.startsWith(t.slice(0, -1))));
}

/** The API Gateway REST (v1) Lambda proxy event for a request. */
export function toProxyEvent(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  route: RouteDefinition | undefined,
  pathParameters: Record<string, string> | null,
  arrivedAt = Date.now(),
): APIGatewayProxyEvent {
  // No prototype: a header or parameter named `constructor` or `__proto__` is a key like any other.
  const headers: Record<string, string> = Object.create(null);
  const multiValueHeaders: Record<string, string[]> = Object.create(null);
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers[name] = value;
    multiValueHeaders[name] ??= [];
    multiValueHeaders[name].push(value);
  }
  const query: Record<string, string> = Object.create(null);
  const multiQuery: Record<string, string[]> = Object.create(null);
  for (const [k, v] of url.searchParams) {
    query[k] = v;
    multiQuery[k] ??= [];
    multiQuery[k].push(v);
  }
  const binary = isBinary(req.headers['content-type']);
  const hasBody = body.length > 0;
  const requestId = randomUUID();
  const resource = route?.path ?? '/{proxy+}';
  return {
    resource,
    path: url.pathname,
    httpMethod: req.method ?? 'GET',
    headers,
    multiValueHeaders,
    queryStringParameters: Object.keys(query).length ? query : null,
    multiValueQueryStringParameters: Object.keys(multiQuery).length ? multiQuery : null,
    pathParameters: pathParameters && Object.keys(pathParameters).length ? pathParameters : null,
    stageVariables: null,
    body: hasBody ? (binary ? body.toString('base64') : body.toString('utf8')) : null,
    isBase64Encoded: hasBody && binary,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      domainName: req.headers.host ?? '127.0.0.1',
      httpMethod: req.method ?? 'GET',
      path: url.pathname,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTimeEpoch: arrivedAt,
      resourceId: 'local',
      resourcePath: resource,
      stage: 'local',
      identity: {
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: req.headers['user-agent'] ?? null,
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        user: null,
        userArn: null,
      },
    },
  };
}

function writeResult(res: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  for (const [k, v] of Object.entries(result.multiValueHeaders ?? {})) headers[k] = v.map(String);
  const body = result.isBase64Encoded
    ? Buffer.from(result.body ?? '', 'base64')
    : Buffer.from(result.body ?? '', 'utf8');
  headers['content-length'] = String(body.length);
  res.writeHead(result.statusCode, headers);
  res.end(body);
}

/**
 * Errors the gateway itself produces, in the contract's shape (as the deployed API's Gateway Responses are), under
 * the caller's request id when the route resolved one.
 */
export function sendGatewayError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  options: { requestId?: string; headers?: Record<string, string> } = {},
): void {
  const requestId = options.requestId ?? randomUUID();
  const body = JSON.stringify({ success: false, error: code, message, requestId });
  res.writeHead(status, {
    ...options.headers,
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': requestId,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
