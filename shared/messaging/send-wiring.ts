import type { CustomTokenAuthPorts } from '../auth/index.ts';
import { queueWorkers } from '../contract/workers.ts';
import { routes } from '../contract/routes.ts';
import type { EventPublisher } from '../events/index.ts';
import type { ScopedIdempotency } from '../http/presets.ts';
import { workerFunction } from '../http/worker.ts';
import { sqsClient } from '../kernel/aws/sqs-client.ts';
import { requiredSetting } from '../kernel/config.ts';
import type { MeteredPlatform, Platform } from '../kernel/platform.ts';
import type { SecretBox } from '../kernel/secret-box.ts';
import { DynamoBatchStore } from './adapters/dynamo-batch-store.ts';
import { DynamoChannelPacer } from './adapters/dynamo-channel-pacer.ts';
import { DynamoChannelStore } from './adapters/dynamo-channel-store.ts';
import { DynamoConversationStore } from './adapters/dynamo-conversation-store.ts';
import { mergedLookupKeys } from './send-checks.ts';
import { DynamoDeferredStore } from './adapters/dynamo-deferred-store.ts';
import { DynamoMessageLog } from './adapters/dynamo-message-log.ts';
import { DynamoMessageStatusStore } from './adapters/dynamo-message-status-store.ts';
import { meteredProviders } from './adapters/metered-providers.ts';
import { makeProviderPost } from './adapters/provider-client.ts';
import { SesEmailSender } from './adapters/ses-email-sender.ts';
import { SmtpEmailSender } from './adapters/smtp-sender.ts';
import { SqsOutboundQueue } from './adapters/sqs-outbound-queue.ts';
import { TwilioSmsSender } from './adapters/twilio-sms-sender.ts';
import { WhatsAppCloudSender } from './adapters/whatsapp-cloud-sender.ts';
import { sendBatchHandler } from './api/batch-route.ts';
import { outboundWorkerHandler } from './api/outbound-worker.ts';
import { messageHandler } from './api/message-route.ts';
import { sendHandler } from './api/send-route.ts';
import { makeGetMessage } from './get-message.ts';
import { makeListUnsubscribe } from './list-unsubscribe.ts';
import type { MediaStore } from './media.ts';
import { sandboxProvider } from './providers.ts';
import { makeSendMessage } from './send-message.ts';
import { messagingSettings } from './settings.ts';
import { makeAcceptBatch } from './volume/accept-batch.ts';
import { makeAcceptDeferred } from './volume/accept-deferred.ts';
import { makeBatchProgress } from './volume/batch.ts';
import { DUE_LOOKAHEAD_MS } from './volume/deferred.ts';
import { makeManageScheduled } from './volume/manage-scheduled.ts';
import { paceOf } from './volume/pace.ts';
import { makeScheduleSend } from './volume/schedule-send.ts';
import { makeSendDeferred } from './volume/send-deferred.ts';
import { makeSweepDue } from './volume/sweep-due.ts';
import { makeWorkOutbound } from './volume/work-outbound.ts';

/*
 * What builds the sends: now (the send route), later (`sendAt`, batch items: the outbound worker) and the due sweep.
 * What they need of other areas or of the deployment comes in from the function: the custom token's auth, the
 * Idempotency-Key store, the secret box, the events publisher and the `User-Agent` of calls to providers.
 */

/**
 * What every function that accepts, moves or sweeps deferred sends (batch items, `sendAt`) builds alike: the store
 * on the table, the `outbound` queue, and acceptance (written with due entries, then queued when due soon). The
 * function declares `sendTo: ['outbound']` and table read/write in its access.
 */
export function deferredSendsOn(platform: Pick<Platform, 'cfg' | 'logger' | 'table'>) {
  const { cfg, logger, table } = platform;
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

/**
 * The send use case as every function that sends builds it (the send route, the outbound worker): the channel and
 * its contacts in one read, the providers with their deadlines (customer hosts behind the SSRF guard), the message
 * log and the event publisher. `providerBudgetMs`: the provider's whole budget within the function's timeout.
 */
function sendMessageOn(
  platform: MeteredPlatform,
  deps: { secretBox: SecretBox; events: EventPublisher; userAgent: string; providerBudgetMs: number },
) {
  const { cfg, logger, metrics, table } = platform;
  const { secretBox, userAgent } = deps;
  const settings = messagingSettings.read();
  // Provider base URLs and SMTP hosts are customer settings: the webhooks' SSRF guard applies (off locally).
  const post = makeProviderPost({ allowPrivate: cfg.webhookAllowPrivate });
  const conversations = new DynamoConversationStore(table, secretBox);
  const channels = new DynamoChannelStore(table, secretBox);
  const statuses = new DynamoMessageStatusStore(table);
  const sendMessage = makeSendMessage({
    // The channel with its contacts' window, suppression and mail-thread items: one BatchGetItem.
    conversations,
    channels,
    messages: new DynamoMessageLog(table),
    statuses,
    providers: meteredProviders(
      {
        sandbox: sandboxProvider,
        smtp: new SmtpEmailSender({
          timeoutMs: settings.SEND_PROVIDER_TIMEOUT_MS,
          allowPrivate: cfg.webhookAllowPrivate,
          allowedPorts: settings.smtpAllowedPorts,
          // Each recipient's own unsubscribe address, keyed per channel by the deployment's key.
          unsubscribe: makeListUnsubscribe(secretBox),
        }),
        // The deployment's own credentials; the configuration set whose events come back to the inbound worker.
        ses: new SesEmailSender({
          // SES is AWS's own API, not a customer's host: its calls get the SDK's usual 10 s whatever the setting.
          timeoutMs: 10_000,
          region: cfg.AWS_REGION ?? 'us-east-1',
          ...(cfg.SES_ENDPOINT ? { endpoint: cfg.SES_ENDPOINT } : {}),
          ...(cfg.SES_CONFIGURATION_SET ? { configurationSet: cfg.SES_CONFIGURATION_SET } : {}),
        }),
        twilio: new TwilioSmsSender({ timeoutMs: settings.SEND_PROVIDER_TIMEOUT_MS, userAgent, post }),
        'whatsapp-cloud': new WhatsAppCloudSender({ timeoutMs: settings.SEND_PROVIDER_TIMEOUT_MS, userAgent, post }),
      },
      metrics,
    ),
    // The events area's publisher: one message format, events batched into SendMessageBatch, large bodies to S3.
    events: deps.events,
    providerBudgetMs: deps.providerBudgetMs,
    onBackgroundError: (what, cause) => logger.error(`${what} failed`, { cause: String(cause) }),
  });
  return { sendMessage, conversations, channels, statuses };
}

/**
 * `POST /api/integration/generic`, built once per cold start: the send, and with `sendAt` the same body kept for its
 * time (nothing sent or charged now).
 */
export function wireSend(
  platform: MeteredPlatform,
  deps: {
    auth: CustomTokenAuthPorts;
    idempotency: ScopedIdempotency;
    secretBox: SecretBox;
    events: EventPublisher;
    userAgent: string;
  },
) {
  const route = routes.find((r) => r.fn === 'send')!;
  const sending = sendMessageOn(platform, {
    ...deps,
    // Leave the function time to refund, record and answer after the provider's last possible moment.
    providerBudgetMs: (route.timeoutSeconds - 5) * 1000,
  });
  const scheduleSend = makeScheduleSend({
    conversations: sending.conversations,
    accept: deferredSendsOn(platform).accept,
  });
  return sendHandler(platform, { ...deps, sendMessage: sending.sendMessage, scheduleSend });
}

/**
 * `POST /api/integration/generic/batch` (`sendAuth`: the custom token's limit and the project's sends a second) and
 * `GET /api/integration/batches/{batchId}` (`readAuth`: the token's limit only), built once per cold start.
 */
export function wireSendBatch(
  platform: Platform,
  deps: {
    sendAuth: CustomTokenAuthPorts;
    readAuth: CustomTokenAuthPorts;
    idempotency: ScopedIdempotency;
    secretBox: SecretBox;
  },
) {
  const { table } = platform;
  const deferred = deferredSendsOn(platform);
  const batches = new DynamoBatchStore(table);
  const acceptBatch = makeAcceptBatch({
    // The channel with every item's window and suppression items, read at once.
    conversations: new DynamoConversationStore(table, deps.secretBox),
    batches,
    accept: deferred.accept,
  });
  const batchProgress = makeBatchProgress({ batches, messages: deferred.store });
  return sendBatchHandler(platform, { ...deps, acceptBatch, batchProgress });
}

/** A channel's pace as stored is read at most this often per worker instance (a change applies within seconds). */
const PACE_CACHE_MS = 2000;

/**
 * The `outbound` queue's worker, built once per cold start: batch items and scheduled sends, each at its channel's
 * pace and time, sent as a send received then.
 */
export function wireOutboundWorker(
  platform: MeteredPlatform,
  deps: { secretBox: SecretBox; events: EventPublisher; userAgent: string },
) {
  const worker = queueWorkers.find((w) => w.fn === 'outbound')!;
  const deferred = deferredSendsOn(platform);
  const sending = sendMessageOn(platform, {
    ...deps,
    // The slowest job of a batch waits about 2 s for its turn; the provider gets the rest, minus the record's time.
    providerBudgetMs: (worker.timeoutSeconds - 10) * 1000,
  });
  const sendDeferred = makeSendDeferred({
    store: deferred.store,
    sendMessage: sending.sendMessage,
    events: deps.events,
    statuses: sending.statuses,
    onBackgroundError: deferred.onBackgroundError,
  });
  const paces = new Map<string, { at: number; pace: Promise<{ perSecond: number } | undefined> }>();
  const workOutbound = makeWorkOutbound({
    store: deferred.store,
    pacer: new DynamoChannelPacer(platform.table),
    paceOf: (projectId, channelId) => {
      const key = `${projectId}/${channelId}`;
      const cached = paces.get(key);
      if (cached && Date.now() - cached.at < PACE_CACHE_MS) return cached.pace;
      const pace = sending.channels.get(projectId, channelId).then((c) => (c ? paceOf(c) : undefined));
      paces.set(key, { at: Date.now(), pace });
      pace.catch(() => paces.delete(key));
      return pace;
    },
    lookup: (projectId, channelId, bodies) =>
      sending.conversations.lookupForSend(projectId, channelId, mergedLookupKeys(bodies)),
    fire: (message, turn, departure, lookup) => sendDeferred.fire(message, turn, departure, lookup),
    abandon: (message) => sendDeferred.abandon(message),
    // A job whose reserved turn is further off than the worker waits comes back with it, shortly before it.
    requeue: (jobs) => deferred.queue.enqueue(jobs),
  });
  return outboundWorkerHandler(platform, { workOutbound, queue: deferred.queue });
}

/**
 * The due sweep, every minute (every 2 s locally): scheduled sends due within the next three minutes, and what a
 * crash left unqueued, onto the outbound queue, each delayed to its time.
 */
export function wireDueSweeper(platform: Platform) {
  const sweepDue = makeSweepDue(deferredSendsOn(platform));
  return workerFunction<unknown, { enqueued: number; notQueued?: number }>(platform.logger).handler(async () =>
    sweepDue(),
  );
}

/**
 * `GET`, `DELETE` and `PATCH /api/integration/messages/{messageId}`, built once per cold start: a message's status,
 * and a scheduled one canceled or moved. Media URLs are signed afresh on every read (valid 7 days from it) with
 * `mediaStore`: the function may read `media/`.
 */
export function wireMessageStatus(platform: Platform, deps: { auth: CustomTokenAuthPorts; mediaStore: MediaStore }) {
  return messageHandler(platform, {
    auth: deps.auth,
    getMessage: makeGetMessage({ messages: new DynamoMessageStatusStore(platform.table) }),
    scheduled: makeManageScheduled(deferredSendsOn(platform)),
    media: deps.mediaStore,
  });
}
