import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { metricNames } from '../contract/metrics.ts';
import type { EventPublisher } from '../events/index.ts';
import { jsonMessage, partialBatchResponse, processEach, workerFunction } from '../http/worker.ts';
import { sqsClient } from '../kernel/aws/sqs-client.ts';
import { SqsJsonQueue } from '../kernel/aws/sqs-json-queue.ts';
import { requiredSetting } from '../kernel/config.ts';
import type { Metrics } from '../kernel/metrics.ts';
import type { Platform } from '../kernel/platform.ts';
import type { SecretBox } from '../kernel/secret-box.ts';
import type { Project } from '../projects/index.ts';
import type { TenantLimiter } from '../ratelimit/index.ts';
import type { CustomTokenAuthPorts } from '../auth/index.ts';
import { DynamoBatchStore } from './adapters/dynamo-batch-store.ts';
import { DynamoChannelDirectory } from './adapters/dynamo-channel-directory.ts';
import { channelFromItem, DynamoChannelStore } from './adapters/dynamo-channel-store.ts';
import { DynamoConversationStore } from './adapters/dynamo-conversation-store.ts';
import { DynamoDeferredStore, listScheduled } from './adapters/dynamo-deferred-store.ts';
import { DynamoMessageLog } from './adapters/dynamo-message-log.ts';
import { DynamoMessageStatusStore } from './adapters/dynamo-message-status-store.ts';
import { makeProviderGet } from './adapters/provider-client.ts';
import { ProviderMediaFetcher } from './adapters/provider-media-fetcher.ts';
import { SqsOrderedInboundQueue } from './adapters/sqs-ordered-inbound-queue.ts';
import { channelHandlers } from './api/channel-routes.ts';
import { conversationHandlers } from './api/conversation-routes.ts';
import { eventHandlers } from './api/event-routes.ts';
import { publicConversationsHandler } from './api/public-conversations.ts';
import { sandboxHandlers } from './api/sandbox-routes.ts';
import { volumeHandlers } from './api/volume-routes.ts';
import { makeConversationQueries } from './conversations.ts';
import { type AcceptInbound, makeAcceptInbound } from './inbound/accept-inbound.ts';
import { makeApplyReports } from './inbound/apply-reports.ts';
import { cacheChannels } from './inbound/channel-cache.ts';
import { makeCollectMedia } from './inbound/collect-media.ts';
import { makeOrderedLane, makeUnorderedLane } from './inbound/lanes.ts';
import { makeProcessInbound } from './inbound/process-inbound.ts';
import type { InboundReport, ReceivedMessage } from './inbound/report.ts';
import { makeSandboxSimulation } from './inbound/sandbox.ts';
import { reportsFromSesNotification } from './inbound/ses.ts';
import { makeProcessSesEvent, sesEventOf } from './inbound/ses-events.ts';
import { makeListUnsubscribe } from './list-unsubscribe.ts';
import { makeChannelUseCases } from './manage-channels.ts';
import type { MediaStore } from './media.ts';
import { rememberChannels } from './recent-channels.ts';
import { makeReportEvent } from './report-event.ts';
import { messagingSettings } from './settings.ts';
import { makeBatchProgress } from './volume/batch.ts';
import { makeChannelVolume } from './volume/channel-volume.ts';

/*
 * What builds the messaging area on the deployment's table and queues. The S3 stores (received media, parked raw
 * reports) come in from the functions, built on first use by the kernel's lazy adapters: a loader reachable from this
 * file would put the S3 client's shared code in the cold start of every function importing the face.
 */

/** A raw report parked in the transfer bucket (reports over 200 KB, every mail). */
interface RawReports {
  put(key: string, body: Buffer): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
}

/**
 * What a public inbound address touches, built once per cold start: the channel directory (one GetItem; all the
 * WhatsApp subscription check needs), the FIFO `inboundOrdered` queue (one send per contact the report names), the
 * transfer bucket (only for reports over 200 KB). `publicBaseUrl` is what the provider signs with the path (Twilio);
 * empty when it signs the body only. The function declares `table: { read: true }`, `sendTo: ['inboundOrdered']`,
 * the transfer bucket's `payloads/inbound/` and `secretsKey` in its access.
 */
export function wireAcceptInbound(
  platform: Pick<Platform, 'cfg' | 'table'>,
  deps: { secretBox: SecretBox; metrics: Metrics; parked: Pick<RawReports, 'put'>; publicBaseUrl: string },
): AcceptInbound {
  const { cfg, table } = platform;
  const queue = new SqsOrderedInboundQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_INBOUND_ORDERED'));
  return makeAcceptInbound({
    channels: DynamoChannelDirectory.over(table, deps.secretBox, channelFromItem),
    // Counted once queued, by provider: a report refused (bad signature, unknown channel) is not one.
    queue: {
      async send(copies) {
        await queue.send(copies);
        const source = copies[0]?.report.source;
        if (source) deps.metrics.count(metricNames.inboundReports, 1, { provider: source });
      },
    },
    parked: deps.parked,
    publicBaseUrl: deps.publicBaseUrl.replace(/\/+$/, ''),
  });
}

/** Each media item gets this long to download (the report's worker has 120 s for up to 10 items and the rest). */
const ITEM_TIMEOUT_MS = 30_000;

/**
 * An inbound worker's handler, built once per cold start: `inbound-ordered` on the FIFO `inboundOrdered` queue (every
 * provider report, one contact's one after another: ./inbound/lanes.ts) or `inbound` on the standard `inbound` queue
 * (SES's notifications, forwarded to the ordered lane; reports set aside from it). The same use case works a report on
 * both; only the ordered lane may assume no other worker has the contact's reports.
 */
export function wireInboundWorker(
  fn: 'inbound' | 'inbound-ordered',
  platform: Platform,
  deps: {
    secretBox: SecretBox;
    events: EventPublisher;
    rawReports: Pick<RawReports, 'get'>;
    /** Received media: stored and signed (the transfer bucket's `media/`). */
    mediaStore: MediaStore;
    /** In-process on AWS; in a sandbox thread locally (UNTRUSTED_PARSING). */
    parseMail(raw: Buffer, to: string): Promise<ReceivedMessage>;
    userAgent: string;
    allowPrivateDestinations: boolean;
  },
) {
  const { cfg, logger, table } = platform;
  const channels = DynamoChannelDirectory.over(table, deps.secretBox, channelFromItem);
  const ordered = fn === 'inbound-ordered';
  const log = {
    info: (message: string, extra?: Record<string, unknown>) => logger.info(message, extra ?? {}),
    warn: (message: string, extra?: Record<string, unknown>) => logger.warn(message, extra ?? {}),
    error: (message: string, extra?: Record<string, unknown>) => logger.error(message, extra ?? {}),
  };
  // Media fetched once with the channel's credentials through the guarded provider client (SSRF guard off only where
  // private destinations are allowed, as for providers), stored in the transfer bucket, offered as presigned GETs.
  const fetcher = new ProviderMediaFetcher({
    get: makeProviderGet({ allowPrivate: deps.allowPrivateDestinations }),
    userAgent: deps.userAgent,
  });
  const media = {
    collect: makeCollectMedia({ fetcher, store: deps.mediaStore, itemTimeoutMs: ITEM_TIMEOUT_MS }),
    store: deps.mediaStore,
  };
  // Ordered lane: the marks' clearing goes on beside the contact's next report; awaited before a batch ends.
  const clearing = new Set<Promise<unknown>>();
  const processInbound = makeProcessInbound({
    channels: cacheChannels(channels),
    statuses: new DynamoMessageStatusStore(table),
    // Windows, mail threads and opt-outs.
    conversations: new DynamoConversationStore(table, deps.secretBox),
    // A mailed unsubscribe is believed when sent to the sender's own unsubscribe address (keyed per channel).
    unsubscribe: makeListUnsubscribe(deps.secretBox),
    media,
    // The events area's publisher: the same event path as every other producer.
    events: deps.events,
    rawReports: deps.rawReports,
    parseMail: deps.parseMail,
    log,
    exclusive: ordered,
    ...(ordered
      ? {
          meanwhile: (step: Promise<unknown>) => {
            clearing.add(step);
            void step.finally(() => clearing.delete(step));
          },
        }
      : {}),
  });
  const orderedQueue = () =>
    new SqsOrderedInboundQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_INBOUND_ORDERED'));

  if (ordered) {
    const queue = orderedQueue();
    const unordered = new SqsJsonQueue<InboundReport>(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_INBOUND'));
    const workBatch = makeOrderedLane({
      work: (report) => processInbound.process(report),
      setAside: (report) => unordered.send(report),
      postpone: (entries) => queue.postpone(entries),
      commit: (receiptHandles) => queue.delete(receiptHandles),
      log,
    });
    return workerFunction<SQSEvent, SQSBatchResponse>(logger).handler(async (event, context: Context) => {
      const again = await workBatch(
        event.Records.map((r) => ({
          messageId: r.messageId,
          receiptHandle: r.receiptHandle,
          body: r.body,
          groupId: r.attributes.MessageGroupId ?? r.messageId,
          receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
        })),
        () => context.getRemainingTimeInMillis(),
      );
      await Promise.allSettled([...clearing]);
      return partialBatchResponse(again);
    });
  }

  // SES's sending events (Delivery, Bounce, Complaint, Reject of mail SES channels sent) come on this queue too.
  const statuses = new DynamoMessageStatusStore(table);
  const processSesEvent = makeProcessSesEvent({ statuses, channels, apply: processInbound.apply, log });
  const forwardTo = orderedQueue();
  // Mail SES judged spam or infected is dropped; the log says which and why.
  const workOne = makeUnorderedLane({
    mailReports: (body) => reportsFromSesNotification(body, (a) => channels.findByAddress(a), log),
    forward: (copies) => forwardTo.send(copies),
    work: (report) => processInbound.process(report),
  });
  return workerFunction<SQSEvent, SQSBatchResponse>(logger).handler(async (event) =>
    partialBatchResponse(
      await processEach(
        event.Records,
        (record) => {
          const body = jsonMessage(record.body);
          const sesEvent = sesEventOf(body);
          return sesEvent ? processSesEvent(sesEvent) : workOne(body);
        },
        logger,
        'inbound report',
      ),
    ),
  );
}

/**
 * The messaging routes of the management API: channels (with the sandbox's outbox and simulations), their sends at
 * volume, suppressions and conversations, and channel back ends' event reports. What messaging needs of other areas
 * comes in: the channel store the function shares with them, whether a project exists, the events publisher, the
 * project's event rate limit, the media store (URLs signed with this function's credentials).
 */
export function wireMessagingAdmin(
  platform: Platform,
  deps: {
    secretBox: SecretBox;
    channels: DynamoChannelStore;
    projects: { get(projectId: string): Promise<Project | undefined> };
    events: EventPublisher;
    limits: Pick<TenantLimiter, 'admit'>;
    mediaStore: MediaStore;
    publicBaseUrl: string;
    allowPrivateDestinations: boolean;
  },
) {
  const { logger, table } = platform;
  // Event reports trust a channel they read for a few seconds (one read per burst, not per event); a channel deleted
  // here is forgotten at once (./recent-channels.ts).
  const reportChannels = rememberChannels(deps.channels);
  const channels = makeChannelUseCases({
    channels: deps.channels,
    forgetChannel: reportChannels.forget,
    messages: new DynamoMessageLog(table),
    projects: deps.projects,
    allowPrivateDestinations: deps.allowPrivateDestinations,
    smtpAllowedPorts: messagingSettings.read().smtpAllowedPorts,
  });
  // The sandbox stands in for a provider: a simulated reply or receipt goes the way a provider's report does.
  const statuses = new DynamoMessageStatusStore(table);
  const conversationStore = new DynamoConversationStore(table, deps.secretBox);
  const sandbox = makeSandboxSimulation({
    requireChannel: channels.requireChannel,
    statuses,
    apply: makeApplyReports({
      statuses,
      conversations: conversationStore,
      unsubscribe: makeListUnsubscribe(deps.secretBox),
      events: deps.events,
      log: { info: (m, extra) => logger.info(m, extra ?? {}) },
    }),
  });
  // Suppressions, and the conversations the console shows.
  const conversations = makeConversationQueries({
    conversations: conversationStore,
    media: deps.mediaStore,
    events: deps.events,
    onBackgroundError: (what, cause) => logger.error(`${what} failed`, { cause: String(cause) }),
  });
  // A channel's scheduled messages and batches (the console).
  const deferredStore = new DynamoDeferredStore(table);
  const batchStore = new DynamoBatchStore(table);
  const volume = makeChannelVolume({
    requireChannel: channels.requireChannel,
    scheduled: (channelId, page) => listScheduled(table, channelId, page),
    batches: (channelId, page) => batchStore.list(channelId, page),
    progress: makeBatchProgress({ batches: batchStore, messages: deferredStore }),
    store: deferredStore,
  });
  const reportEvent = makeReportEvent({
    projects: deps.projects,
    channels: reportChannels,
    events: deps.events,
    limits: deps.limits,
  });
  return {
    ...eventHandlers(reportEvent),
    ...channelHandlers(channels, deps.publicBaseUrl),
    ...volumeHandlers(volume),
    ...conversationHandlers(channels.requireChannel, conversations),
    ...sandboxHandlers(sandbox),
  };
}

/**
 * `GET /api/integration/conversations/{contact}` and its `/messages`, built once per cold start: the custom token's
 * channel read, then the contact's conversation (media URLs signed with `mediaStore`). Read-only: nothing here
 * publishes.
 */
export function wireConversations(
  platform: Platform,
  deps: { auth: CustomTokenAuthPorts; secretBox: SecretBox; mediaStore: MediaStore },
) {
  const { logger, table } = platform;
  const conversations = makeConversationQueries({
    conversations: new DynamoConversationStore(table, deps.secretBox),
    media: deps.mediaStore,
    events: {
      prepare: () => Promise.reject(new Error('no events from the conversation routes')),
      send: () => Promise.reject(new Error('no events from the conversation routes')),
    },
    onBackgroundError: (what, cause) => logger.error(`${what} failed`, { cause: String(cause) }),
  });
  return publicConversationsHandler(platform, {
    auth: deps.auth,
    channels: new DynamoChannelStore(table, deps.secretBox),
    conversations,
  });
}
