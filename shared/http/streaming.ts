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
 * (the client disconnected: the runtime destroys the response stream), `onClosedEarly` runs so the work stops.
 */
export function streamingResult(
  statusCode: number,
  headers: Record<string, string>,
  pieces: AsyncIterable<string>,
  onClosedEarly: () => void,
): HttpResult {
  const iterator = pieces[Symbol.asyncIterator]();
  let ended = false;
  const body = new Readable({
    async read() {
      try {
        const next = await iterator.next();
        if (next.done) ended = true;
        this.push(next.done ? null : next.value);
      } catch (error) {
        this.destroy(error as Error);
      }
    },
    destroy(error, callback) {
      if (!ended) onClosedEarly();
      callback(error);
    },
  });
  // middy's streaming mode takes a Readable as the body; HttpResult types the buffered form only.
  return { statusCode, headers, body: body as unknown as string };
}
