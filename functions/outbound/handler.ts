import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { partialBatchResponse, workerFunction } from '#shared/http/worker.ts';
import { queueWorkers } from '#shared/contract/workers.ts';
import {
  DynamoChannelPacer,
  makeSendDeferred,
  makeWorkOutbound,
  type OutboundRecord,
  paceOf,
} from '#shared/messaging/index.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { sendMessageOn } from '#functions/_wiring/send-message.ts';
import { deferredSendsOn } from '#functions/_wiring/outbound.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('outbound');
const metrics = new PowertoolsMetrics('outbound');
const table = dynamoTable(cfg);
const secretBox = await secretBoxFromConfig(cfg);
const worker = queueWorkers.find((w) => w.fn === 'outbound')!;
const deferred = deferredSendsOn(cfg, table, logger);
const sending = sendMessageOn(cfg, {
  table,
  secretBox,
  logger,
  metrics,
  // The slowest job of a batch waits about 2 s for its turn; the provider gets the rest, minus the record's time.
  providerBudgetMs: (worker.timeoutSeconds - 10) * 1000,
});
const sendDeferred = makeSendDeferred({
  store: deferred.store,
  sendMessage: sending.sendMessage,
  events: sending.events,
  statuses: sending.statuses,
  onBackgroundError: deferred.onBackgroundError,
});
/** A channel's pace as stored, read at most every 2 s per worker instance (a change applies within seconds). */
const paces = new Map<string, { at: number; pace: Promise<{ perSecond: number } | undefined> }>();
const workOutbound = makeWorkOutbound({
  store: deferred.store,
  pacer: new DynamoChannelPacer(table),
  paceOf: (projectId, channelId) => {
    const key = `${projectId}/${channelId}`;
    const cached = paces.get(key);
    if (cached && Date.now() - cached.at < 2000) return cached.pace;
    const pace = sending.channels.get(projectId, channelId).then((c) => (c ? paceOf(c) : undefined));
    paces.set(key, { at: Date.now(), pace });
    pace.catch(() => paces.delete(key));
    return pace;
  },
  fire: (message, turn) => sendDeferred.fire(message, turn),
  abandon: (message) => sendDeferred.abandon(message),
});

/**
 * `outbound` queue → batch items and scheduled sends, each at its channel's pace and time, sent as a send received
 * then. A job whose turn or time is further off goes back on the queue for about that long (reported as a batch item
 * failure after its visibility was changed); a message is claimed once, so a job seen twice sends nothing twice.
 */
export const handler = workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => {
  const receipts = new Map(event.Records.map((r) => [r.messageId, r.receiptHandle]));
  const records: OutboundRecord[] = [];
  for (const r of event.Records) {
    try {
      records.push({ id: r.messageId, job: JSON.parse(r.body) });
    } catch {
      logger.warn('outbound: a job that is not JSON was dropped', { messageId: r.messageId });
    }
  }
  const outcomes = await workOutbound(records);
  const later = outcomes.filter((o) => !o.done);
  await deferred.queue
    .postpone(later.map((o) => ({ receiptHandle: receipts.get(o.id)!, seconds: o.done ? 0 : o.seconds })))
    .catch((cause) =>
      logger.warn('outbound: postponing failed (the jobs come back at their visibility timeout)', {
        cause: String(cause),
      }),
    );
  return partialBatchResponse(later.map((o) => o.id));
});
