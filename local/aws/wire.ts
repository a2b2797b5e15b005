import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';

/** The account every stand-in answers for (fauxqs's too): the ARNs they make name it. */
export const LOCAL_ACCOUNT = '000000000000';

/**
 * How a service's SDK client talks to it: AWS JSON 1.1 (`X-Amz-Target`, EventBridge and Kinesis), the query protocol
 * (form-encoded `Action`, XML answers: STS, SNS), or REST-JSON (paths and verbs: SES v2). Errors are written in the
 * protocol's own shape, so the SDK raises the exception class AWS's answer would.
 */
export type Protocol = 'json' | 'query' | 'rest-json';

/** An error a stand-in answers with: the status, code and message AWS would give. */
export class AwsError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface AwsRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The access key the request was signed with (signatures are not verified: any credentials work). */
  accessKeyId: string;
}

/** What a stand-in answers: a JSON value for the JSON protocols, an XML result body for the query protocol. */
export type AwsAnswer = { status?: number; json?: unknown; xml?: string };

export interface StandInService {
  /** One API call, well-formed and signed. */
  handle(request: AwsRequest): Promise<AwsAnswer> | AwsAnswer;
  /** `GET /_local/<path>`: what a test reads (what arrived), as JSON; undefined for an unknown path. */
  inspect?(path: string, query: URLSearchParams): unknown;
}

export interface StandInServer {
  endpoint: string;
  stop(): Promise<void>;
}

export interface StandInServerOptions {
  /** The service's signing name (`sts`, `events`, `kinesis`, `ses`): a request signed for another is refused. */
  signingName: string;
  protocol: Protocol;
  port: number;
  /** Largest request body taken, from the service's own limit. */
  maxBodyBytes: number;
  /** Loads the service on its first request: nothing but the listener costs start-up time. */
  load: () => Promise<StandInService>;
}

/**
 * One stand-in's HTTP server on 127.0.0.1: reads a bounded body, checks the request is signed for this service (the
 * signature itself is not verified), hands it to the service and writes its answer or error in the protocol's shape.
 */
export async function listenStandIn(options: StandInServerOptions): Promise<StandInServer> {
  let service: Promise<StandInService> | undefined;
  const loaded = () => {
    service ??= options.load();
    return service;
  };
  const handler = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    serve(req as IncomingMessage, res as ServerResponse, options, loaded).catch((error: unknown) => {
      const failure =
        error instanceof AwsError ? error : new AwsError(500, 'InternalFailure', 'The stand-in failed to answer.');
      if (!(error instanceof AwsError)) console.error(`[local ${options.signingName}]`, error);
      if (res.headersSent) return void res.destroy();
      writeError(res as ServerResponse, options.protocol, failure);
    });
  };
  return listenHttp1And2(handler, options.port);
}

/**
 * An HTTP server on 127.0.0.1 taking HTTP/1.1 and HTTP/2 without TLS on one port. Some SDK clients speak HTTP/2 by
 * default (Kinesis's), most HTTP/1.1: each connection is told apart by HTTP/2's connection preface.
 */
export async function listenHttp1And2(
  handler: (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void,
  port: number,
): Promise<StandInServer> {
  const http1 = createServer(handler);
  http1.keepAliveTimeout = 65_000;
  const http2 = createHttp2Server(handler);
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length < HTTP2_PREFACE.length && HTTP2_PREFACE.startsWith(head.toString('latin1'))) return;
      socket.off('data', onData);
      socket.pause();
      socket.unshift(head);
      // HTTP/2 takes the bytes already read from the socket's buffer, then reads its handle itself.
      if (HTTP2_PREFACE.startsWith(head.toString('latin1', 0, HTTP2_PREFACE.length))) http2.emit('connection', socket);
      else {
        http1.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', onData);
  });
  server.listen(port, '127.0.0.1');
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => Promise.reject(error as Error)),
  ]);
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

const HTTP2_PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  options: StandInServerOptions,
  loaded: () => Promise<StandInService>,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (req.method === 'GET' && url.pathname.startsWith('/_local/')) {
    req.resume();
    const found = (await loaded()).inspect?.(url.pathname.slice('/_local/'.length), url.searchParams);
    const body = JSON.stringify(found ?? { message: `Nothing at ${url.pathname}` });
    res.writeHead(found === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(body);
    return;
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > options.maxBodyBytes) {
    req.resume();
    throw tooLarge(options.maxBodyBytes);
  }
  const body = await readBody(req, options.maxBodyBytes);
  const accessKeyId = signer(req.headers, options.signingName);
  const answer = await (await loaded()).handle({
    method: req.method ?? 'GET',
    url,
    headers: req.headers,
    body,
    accessKeyId,
  });
  writeAnswer(res, options.protocol, answer);
}

const tooLarge = (limit: number) =>
  new AwsError(413, 'RequestEntityTooLarge', `Request must be smaller than ${limit} bytes.`);

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge(limit));
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

/**
 * The access key of a SigV4 `Authorization` header scoped to `service`. AWS answers an unsigned request 403 and a
 * request signed for another service 403 with the scope it expected: so does the stand-in, which catches a client
 * pointed at the wrong endpoint.
 */
function signer(headers: IncomingHttpHeaders, service: string): string {
  const credential = /Credential=([^,\s]+)/.exec(headers.authorization ?? '')?.[1];
  if (!credential) throw new AwsError(403, 'MissingAuthenticationToken', 'Missing Authentication Token');
  const [accessKeyId, , , scope] = credential.split('/');
  if (scope !== service)
    throw new AwsError(
      403,
      'InvalidSignatureException',
      `Credential should be scoped to correct service: '${service}'.`,
    );
  return accessKeyId ?? '';
}

function writeAnswer(res: ServerResponse, protocol: Protocol, answer: AwsAnswer): void {
  const requestId = randomUUID();
  if (protocol === 'query') {
    res
      .writeHead(answer.status ?? 200, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId })
      .end(answer.xml ?? '');
    return;
  }
  const type = protocol === 'json' ? 'application/x-amz-json-1.1' : 'application/json';
  res
    .writeHead(answer.status ?? 200, { 'content-type': type, 'x-amzn-requestid': requestId })
    .end(JSON.stringify(answer.json ?? {}));
}

function writeError(res: ServerResponse, protocol: Protocol, error: AwsError): void {
  const requestId = randomUUID();
  if (protocol === 'query') {
    const type = error.status >= 500 ? 'Receiver' : 'Sender';
    res
      .writeHead(error.status, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId })
      .end(
        `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>${type}</Type>` +
          `<Code>${xmlEscape(error.code)}</Code><Message>${xmlEscape(error.message)}</Message></Error>` +
          `<RequestId>${requestId}</RequestId></ErrorResponse>`,
      );
    return;
  }
  const json = protocol === 'json';
  res
    .writeHead(error.status, {
      'content-type': json ? 'application/x-amz-json-1.1' : 'application/json',
      'x-amzn-requestid': requestId,
      'x-amzn-errortype': error.code,
    })
    .end(JSON.stringify(json ? { __type: error.code, message: error.message } : { message: error.message }));
}

export function xmlEscape(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );
}

/** The JSON body of a JSON-protocol call, an object or a `SerializationException` as AWS answers. */
export function jsonBody(request: AwsRequest): Record<string, unknown> {
  if (!request.body.length) return {};
  try {
    const value: unknown = JSON.parse(request.body.toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  throw new AwsError(400, 'SerializationException', 'Start of structure or map found where not expected.');
}

/** The operation a JSON-protocol call names in `X-Amz-Target` (`Kinesis_20131202.PutRecord` → `PutRecord`). */
export function targetOperation(request: AwsRequest, prefix: string): string {
  const target = String(request.headers['x-amz-target'] ?? '');
  if (!target.startsWith(`${prefix}.`))
    throw new AwsError(400, 'UnknownOperationException', `Unknown operation ${target || '(none)'}`);
  return target.slice(prefix.length + 1);
}

/** A required string parameter, or the validation error AWS's front answers for a missing member. */
export function requiredString(input: Record<string, unknown>, member: string, code = 'ValidationException'): string {
  const value = input[member];
  if (typeof value !== 'string' || value === '')
    throw new AwsError(
      400,
      code,
      `1 validation error detected: Value null at '${member[0]!.toLowerCase()}${member.slice(1)}' failed to satisfy constraint: Member must not be null`,
    );
  return value;
}

/** An optional string parameter (a wrong type is a `SerializationException`, as AWS answers). */
export function optionalString(input: Record<string, unknown>, member: string): string | undefined {
  const value = input[member];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new AwsError(400, 'SerializationException', `${member} must be a string.`);
  return value;
}

/** The resource name an ARN ends with (`arn:aws:kinesis:…:stream/orders` → `orders`), or undefined if not an ARN. */
export function arnResource(arn: string, service: string, kind?: string): string | undefined {
  const parts = arn.split(':');
  if (parts.length < 6 || parts[0] !== 'arn' || parts[2] !== service) return undefined;
  const resource = parts.slice(5).join(':');
  if (!kind) return resource;
  return resource.startsWith(`${kind}/`) ? resource.slice(kind.length + 1) : undefined;
}
