import { Readable, type Writable } from 'node:stream';
import middy from '@middy/core';
import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import type { Logger } from '../kernel/logger.ts';
import type { InvocationMetrics } from '../kernel/metrics.ts';
import { observeInvocation } from './invocation.ts';
import { httpConventions } from './middleware.ts';
import type { Context, HttpEvent, HttpResult } from './types.ts';

/**
 * An HTTP function whose response is streamed (Lambda response streaming, `awslambda.streamifyResponse`; behind the
 * REST API with the integration's response transfer mode STREAM). Same conventions as `httpFunction`; a handler
 * returns either a usual JSON result or {@link streamingResult}, whose body is written out as it is produced. From
 * the invocation's first instant, {@link callerGoneSignal} tells the handler when the caller went away.
 */
export function httpStreamingFunction<TEvent extends HttpEvent = HttpEvent>(
  logger: Logger,
  metrics?: InvocationMetrics,
) {
  return middy<TEvent, HttpResult, Error, Context>({
    timeoutEarlyInMillis: 0,
    executionMode: streamifyWatchingTheCaller,
  })
    .use(observeInvocation(logger, metrics))
    .use(httpConventions(logger));
}

type StreamingLambda = ((event: unknown, responseStream: Writable, context: Context) => Promise<void>) & {
  handler(replacement: unknown): StreamingLambda;
};
type ExecutionMode = (...args: unknown[]) => StreamingLambda;
declare const awslambda: { streamifyResponse<T>(handler: T): T };

const callerSignals = new WeakMap<object, AbortSignal>();

/**
 * Fires when the caller of this invocation went away: the response stream the runtime handed the function closed
 * before the answer was finished (the client disconnected). Watched from the start of the invocation, so a caller
 * who leaves while the answer is still being prepared (before any byte of it exists) is noticed at once.
 */
export function callerGoneSignal(context: Context): AbortSignal | undefined {
  return callerSignals.get(context);
}

/**
 * middy's streaming mode, with the invocation's response stream watched: when it closes unfinished, the signal
 * {@link callerGoneSignal} gives for the invocation's context fires.
 */
const streamifyWatchingTheCaller = ((...args: unknown[]) => {
  const inner = (executionModeStreamifyResponse as unknown as ExecutionMode)(...args);
  const outer = awslambda.streamifyResponse(async (event: unknown, responseStream: Writable, context: Context) => {
    const gone = new AbortController();
    callerSignals.set(context, gone.signal);
    const onClose = () => {
      if (!responseStream.writableFinished) gone.abort();
    };
    responseStream.once('close', onClose);
    if (responseStream.destroyed) onClose();
    try {
      await inner(event, responseStream, context);
    } finally {
      responseStream.off('close', onClose);
    }
  }) as StreamingLambda;
  outer.handler = (replacement: unknown) => {
    inner.handler(replacement);
    return outer;
  };
  return outer;
}) as unknown as typeof executionModeStreamifyResponse;

/**
 * A result whose body is a stream of text pieces, each written as soon as it is produced. When the reader goes away
 * (the client disconnected: the runtime destroys the response stream), the producer is closed and `onClosedEarly`
 * runs. A piece is taken from `pieces` only while the response stream is alive, and the next one only once the
 * previous was handed on.
 */
export function streamingResult(
  statusCode: number,
  headers: Record<string, string>,
  pieces: AsyncIterable<string>,
  onClosedEarly: () => void = () => {},
): HttpResult {
  const iterator = pieces[Symbol.asyncIterator]();
  let ended = false;
  let started = false;
  const body = new Readable({
    async read() {
      try {
        if (!started) {
          started = true;
          // One turn first: a reader that left while the answer was being prepared (the response stream is already
          // destroyed) is seen before any piece is taken, so nothing counts as written to it.
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (this.destroyed) return;
        }
        const next = await iterator.next();
        if (next.done) ended = true;
        this.push(next.done ? null : next.value);
      } catch (error) {
        this.destroy(error as Error);
      }
    },
    destroy(error, callback) {
      if (!ended) {
        onClosedEarly();
        // Lets the producer finish its own way (its `finally`), even when it is waiting at a piece nobody took.
        void Promise.resolve(iterator.return?.()).catch(() => {});
      }
      callback(error);
    },
  });
  // middy's streaming mode takes a Readable as the body; HttpResult types the buffered form only.
  return { statusCode, headers, body: body as unknown as string };
}

/** The headers of a Server-Sent Events answer (the OpenAI-format routes' streams). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // Proxies that buffer (nginx) would hold the tokens back.
  'x-accel-buffering': 'no',
} as const;
