import middy from '@middy/core';
import type { Context, SQSBatchResponse } from 'aws-lambda';
import { observeInvocation } from './invocation.ts';
import type { Logger } from '../kernel/logger.ts';
import type { InvocationMetrics } from '../kernel/metrics.ts';

/**
 * A queue or scheduled worker's handler with the Lambda context in its logs and its metrics published per
 * invocation: `workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => ...)`.
 */
export function workerFunction<TEvent, TResult>(logger: Logger, metrics?: InvocationMetrics) {
  return middy<TEvent, TResult, Error, Context>({ timeoutEarlyInMillis: 0 }).use(observeInvocation(logger, metrics));
}

/** A queue message that can never be processed (not JSON, not a known shape): logged and dropped, never retried. */
export class PoisonMessageError extends Error {
  override readonly name = 'PoisonMessageError';
}

/**
 * The partial batch response every queue worker answers with (SQS `ReportBatchItemFailures`): the ids of the
 * messages to receive again, each once. Messages not named are deleted from the queue.
 */
export function partialBatchResponse(failed: Iterable<string | undefined>): SQSBatchResponse {
  const ids = new Set<string>();
  for (const id of failed) if (id !== undefined) ids.add(id);
  return { batchItemFailures: [...ids].map((itemIdentifier) => ({ itemIdentifier })) };
}

/**
 * Processes every record of a batch at once and returns the ids of those to retry: a record whose `process` throws
 * is logged and retried alone (its siblings are not), except a {@link PoisonMessageError}, which is logged and
 * dropped. Use cases make retries safe with their own conditional writes.
 */
export async function processEach<R extends { messageId: string }>(
  records: readonly R[],
  process: (record: R) => Promise<void>,
  log: Pick<Logger, 'warn' | 'error'>,
  what: string,
): Promise<string[]> {
  const failed = await Promise.all(
    records.map(async (record) => {
      try {
        await process(record);
        return undefined;
      } catch (error) {
        if (error instanceof PoisonMessageError) {
          log.warn(`${what}: message dropped`, { messageId: record.messageId, cause: error.message });
          return undefined;
        }
        log.error(`${what} failed: retried`, { messageId: record.messageId, cause: String(error) });
        return record.messageId;
      }
    }),
  );
  return failed.filter((id): id is string => id !== undefined);
}

/** A message body as JSON, or a {@link PoisonMessageError}. */
export function jsonMessage(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new PoisonMessageError('the message is not JSON');
  }
}
