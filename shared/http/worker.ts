import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { observeInvocation } from '#shared/http/invocation.ts';
import type { Logger } from '#shared/kernel/logger.ts';
import type { InvocationMetrics } from '#shared/kernel/metrics.ts';

/**
 * A queue or scheduled worker's handler with the Lambda context in its logs and its metrics published per
 * invocation: `workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => ...)`.
 */
export function workerFunction<TEvent, TResult>(logger: Logger, metrics?: InvocationMetrics) {
  return middy<TEvent, TResult, Error, Context>({ timeoutEarlyInMillis: 0 }).use(observeInvocation(logger, metrics));
}
