import { Readable } from 'node:stream';
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
 * returns either a usual JSON result or {@link streamingResult}, whose body is written out as it is produced.
 */
export function httpStreamingFunction<TEvent extends HttpEvent = HttpEvent>(
  logger: Logger,
  metrics?: InvocationMetrics,
) {
  return middy<TEvent, HttpResult, Error, Context>({
    timeoutEarlyInMillis: 0,
    executionMode: executionModeStreamifyResponse,
  })
    .use(observeInvocation(logger, metrics))
    .use(httpConventions(logger));
}

/**
 * A result whose body is a stream of text pieces, each written as soon as it is produced. When the reader goes away
 * (the client disconnected: the runtime destroys the response stream), `onClosedEarly` runs so the work stops. A
 * piece is taken from `pieces` only while the response stream is alive, and the next one only once the previous was
 * handed on: taking a second piece means the first was written out (what the credit rule of contract §15 counts).
 */
export function streamingResult(
  statusCode: number,
  headers: Record<string, string>,
  pieces: AsyncIterable<string>,
  onClosedEarly: () => void,
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
