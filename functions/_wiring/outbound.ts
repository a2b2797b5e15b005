import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { requiredSetting, type Config } from '#shared/kernel/config.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import type { Logger } from '#shared/kernel/logger.ts';
import {
  DUE_LOOKAHEAD_MS,
  DynamoChannelPacer,
  DynamoDeferredStore,
  makeAcceptDeferred,
  SqsOutboundQueue,
} from '#shared/messaging/index.ts';

/**
 * What every function that accepts, moves or sweeps deferred sends (batch items, `sendAt`) builds alike: the store
 * on the table, the `outbound` queue, and acceptance (written with due entries, then queued when due soon). The
 * function declares `sendTo: ['outbound']` and table read/write in its access.
 */
export function deferredSendsOn(cfg: Config, table: DynamoTable, logger: Logger) {
  const store = new DynamoDeferredStore(table);
  const queue = new SqsOutboundQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_OUTBOUND'));
  const onBackgroundError = (what: string, cause: unknown) => logger.error(`${what} failed`, { cause: String(cause) });
  return {
    store,
    queue,
    lookaheadMs: DUE_LOOKAHEAD_MS,
    onBackgroundError,
    accept: makeAcceptDeferred({
      store,
      queue,
      lookaheadMs: DUE_LOOKAHEAD_MS,
      onBackgroundError,
      // Where a batch's queued items stand in their channel's queue: their jobs become visible about their turn.
      pacer: new DynamoChannelPacer(table),
    }),
  };
}
