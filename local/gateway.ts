import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { matchRoute } from '#shared/contract/route-match.ts';
import { binaryMediaTypes, fallbackFunction, routes, type RouteDefinition } from '#shared/contract/routes.ts';
import { invokeWithTimeout, lambdaContext, LambdaTimeoutError } from './lambda-context.ts';
import { isStreamingHandler, serveStreaming, type StreamingHandler } from './response-streaming.ts';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A request the gateway answers itself (the local `/healthz`, later the console); undefined to pass it on. */
export type LocalRoute = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;

/** Largest body the local gateway buffers: the 25 MB extract upload plus multipart framing. */
export const LOCAL_MAX_BODY_BYTES = 27 * 1024 * 1024;

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
  const server = createServer((req, res) => {
    handle(req, res, options).catch((error) => {
      if (!res.headersSent) sendGatewayError(res, 500, 'INTERNAL_ERROR', 'The gateway failed to handle the request.');
      else res.destroy(error as Error);
    });
  });
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
  return server;
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

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      return 'too-large';
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
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
