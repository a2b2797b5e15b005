import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';

/**
 * The local stand-in for Lambda response streaming, as the Node.js runtime provides it on AWS:
 * - `awslambda.streamifyResponse(handler)` marks a handler `(event, responseStream, context)` as streaming;
 * - `awslambda.HttpResponseStream.from(stream, { statusCode, headers, cookies })` makes the stream an HTTP
 *   integration response: the first bytes written are the JSON metadata prelude, then 8 NUL bytes, then the body.
 * The gateway (./gateway.ts) reads that prelude to write the status and headers, then passes the body through as it
 * is written, so the client sees each piece when the function writes it.
 */
const HANDLER_STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const STREAM_RESPONSE = 'response';
export const HTTP_INTEGRATION_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const PRELUDE_DELIMITER = Buffer.alloc(8);

/** The metadata a streaming function sends before its body (API Gateway's HTTP integration response). */
export interface StreamingPrelude {
  statusCode?: number;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  cookies?: string[];
}

/** What a handler writes to: the response stream the runtime hands it. */
export class LocalResponseStream extends Writable {
  contentType = 'application/octet-stream';
  /** Set by `HttpResponseStream.from`: writes the prelude before the first body byte. */
  onBeforeFirstWrite?: (write: (chunk: Buffer) => void) => void;
  private started = false;

  constructor(private readonly sink: (chunk: Buffer) => void) {
    super({ decodeStrings: true });
  }

  setContentType(contentType: string): void {
    this.contentType = contentType;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.started) {
      this.started = true;
      this.onBeforeFirstWrite?.((bytes) => this.sink(bytes));
    }
    if (chunk.length > 0) this.sink(chunk);
    callback();
  }
}

interface AwsLambdaGlobal {
  streamifyResponse<T extends (...args: never[]) => unknown>(handler: T): T;
  HttpResponseStream: { from(stream: LocalResponseStream, prelude: StreamingPrelude): LocalResponseStream };
}

/**
 * Installs the streaming members of `globalThis.awslambda` (what the Lambda runtime provides) unless something already
 * did. Member by member: `@aws/lambda-invoke-store` (through Powertools) creates `awslambda` with only its store.
 */
export function installLambdaStreamingGlobals(): void {
  const global = globalThis as unknown as { awslambda?: Partial<AwsLambdaGlobal> };
  global.awslambda ??= {};
  global.awslambda.streamifyResponse ??= (handler) => markStreaming(handler);
  global.awslambda.HttpResponseStream ??= {
    from(stream, prelude) {
      stream.setContentType(HTTP_INTEGRATION_CONTENT_TYPE);
      const metadata = Buffer.from(JSON.stringify(prelude), 'utf8');
      stream.onBeforeFirstWrite = (write) => {
        write(metadata);
        write(PRELUDE_DELIMITER);
      };
      return stream;
    },
  };
}

/** Marks a handler as streaming, as `awslambda.streamifyResponse` does. */
export function markStreaming<T extends object>(handler: T): T {
  (handler as Record<symbol, string>)[HANDLER_STREAMING] = STREAM_RESPONSE;
  return handler;
}

export function isStreamingHandler(handler: unknown): boolean {
  return (handler as Record<symbol, unknown> | undefined)?.[HANDLER_STREAMING] === STREAM_RESPONSE;
}

export type StreamingHandler = (event: unknown, responseStream: LocalResponseStream, context: unknown) => Promise<void>;

/**
 * Runs a streaming handler with the HTTP response as its destination: the prelude becomes the status line and
 * headers, each body write goes out at once (no buffering, no content-length: chunked). A client that goes away
 * destroys the handler's stream, as the Lambda runtime does, so the function can stop its work: at once, whether it
 * left before the handler started, before the first byte was written, or mid-answer.
 */
export async function serveStreaming(
  handler: StreamingHandler,
  event: unknown,
  context: unknown,
  res: ServerResponse,
): Promise<void> {
  let pending: Buffer[] = [];
  let headWritten = false;
  let bodyStarted = false;
  let stream: LocalResponseStream;

  const writeHead = (prelude: StreamingPrelude, contentType?: string) => {
    const headers: Record<string, string | string[]> = {};
    if (contentType) headers['content-type'] = contentType;
    for (const [k, v] of Object.entries(prelude.headers ?? {})) headers[k] = String(v);
    for (const [k, v] of Object.entries(prelude.multiValueHeaders ?? {})) headers[k] = v.map(String);
    if (prelude.cookies?.length) headers['set-cookie'] = prelude.cookies;
    res.writeHead(prelude.statusCode ?? 200, headers);
    headWritten = true;
    // The status line leaves with the first body bytes when they follow in this turn (one socket write, as for a
    // buffered answer), else on its own at the end of the turn, so a client still sees it before a slow first piece.
    setImmediate(() => {
      if (!bodyStarted && !res.writableEnded && !res.destroyed) res.flushHeaders();
    });
  };
  const writeBody = (chunk: Buffer) => {
    bodyStarted = true;
    res.write(chunk);
  };
  const sink = (chunk: Buffer) => {
    if (res.destroyed) return;
    if (headWritten) return writeBody(chunk);
    if (stream.contentType !== HTTP_INTEGRATION_CONTENT_TYPE) {
      writeHead({ statusCode: 200 }, stream.contentType);
      return writeBody(chunk);
    }
    pending.push(chunk);
    const buffered = Buffer.concat(pending);
    const end = buffered.indexOf(PRELUDE_DELIMITER);
    if (end === -1) return;
    pending = [];
    writeHead(JSON.parse(buffered.subarray(0, end).toString('utf8')) as StreamingPrelude);
    const rest = buffered.subarray(end + PRELUDE_DELIMITER.length);
    if (rest.length > 0) writeBody(rest);
  };
  stream = new LocalResponseStream(sink);
  const onClientGone = () => {
    // Without an error: a handler that writes without listening for one must not crash the process.
    if (!res.writableFinished) stream.destroy();
  };
  res.on('close', onClientGone);
  // A client that left while the request was read or routed: its 'close' has already been and gone.
  if (res.destroyed) onClientGone();
  try {
    await handler(event, stream, context);
    if (!stream.writableFinished && !stream.destroyed) stream.end();
    if (!headWritten && !res.destroyed) writeHead({ statusCode: 200 }, stream.contentType);
    if (!res.destroyed) res.end();
  } finally {
    res.off('close', onClientGone);
  }
}
