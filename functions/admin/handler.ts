import { readSecret } from '#shared/kernel/aws/secrets.ts';
import { DynamoChannelStore } from '#shared/messaging/adapters/dynamo-channel-store.ts';
import { DynamoConversationStore } from '#shared/messaging/adapters/dynamo-conversation-store.ts';
import { DynamoCreditLedger, wireCreditUsage } from '#shared/credits/index.ts';
import { wireIntegrationAdmin } from '#shared/integrations/index.ts';
import { DynamoKnowledgeFileStore } from '#shared/knowledge/adapters/dynamo-knowledge-file-store.ts';
import { DynamoKnowledgeIndexStore } from '#shared/knowledge/adapters/dynamo-knowledge-index-store.ts';
import { DynamoMessageLog } from '#shared/messaging/adapters/dynamo-message-log.ts';
import { DynamoMessageStatusStore } from '#shared/messaging/adapters/dynamo-message-status-store.ts';
import { DynamoProjectStore, wireProjectAdmin } from '#shared/projects/index.ts';
import { DynamoTokenStore } from '#shared/auth/index.ts';
import {
  s3KnowledgeObjectStoreOnFirstUse,
  s3KnowledgeUploadInboxOnFirstUse,
} from '#shared/knowledge/adapters/lazy-s3-knowledge-stores.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { SqsIngestQueue } from '#shared/knowledge/adapters/sqs-ingest-queue.ts';
import { HttpError } from '#shared/http/errors.ts';
import { json } from '#shared/http/types.ts';
import { bindRoutes } from '#shared/http/router.ts';
import { makeKnowledgeManagement, type KnowledgeManagement } from '#shared/knowledge/manage.ts';
import { makeChannelUseCases } from '#shared/messaging/manage-channels.ts';
import { makeConversationQueries } from '#shared/messaging/conversations.ts';
import { conversationHandlers } from '#shared/messaging/api/conversation-routes.ts';
import { mediaStoreFromConfig } from '#functions/_wiring/media.ts';
import { makeApplyReports } from '#shared/messaging/inbound/process-inbound.ts';
import { makeListUnsubscribe } from '#shared/messaging/list-unsubscribe.ts';
import { makeSandboxSimulation } from '#shared/messaging/inbound/sandbox.ts';
import { eventPublisherFromConfig } from '#functions/_wiring/event-publisher.ts';
import { idempotencyOnDynamo } from '#shared/idempotency/index.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { platform as adminPlatform } from '#functions/_wiring/platform.ts';
import { ADMIN_PREFIX, adminRouteTable } from './routes.ts';
import { adminRouteAccess } from './access.ts';
import { projectScopeOf, wireTenancy } from '#shared/tenancy/index.ts';
import { wireBotAdmin } from '#shared/bots/index.ts';
import { channelHandlers } from '#shared/messaging/api/channel-routes.ts';
import { volumeHandlers } from '#shared/messaging/api/volume-routes.ts';
import { DynamoBatchStore } from '#shared/messaging/adapters/dynamo-batch-store.ts';
import { DynamoDeferredStore, listScheduled } from '#shared/messaging/adapters/dynamo-deferred-store.ts';
import { makeBatchProgress } from '#shared/messaging/volume/batch.ts';
import { makeChannelVolume } from '#shared/messaging/volume/channel-volume.ts';
import { eventHandlers } from '#shared/messaging/api/event-routes.ts';
import { sandboxHandlers } from '#shared/messaging/api/sandbox-routes.ts';
import { knowledgeHandlers } from '#shared/knowledge/api/admin-routes.ts';
import { makeReportEvent } from '#shared/messaging/report-event.ts';
import { rememberChannels } from '#shared/messaging/recent-channels.ts';
import { tenantLimiterFromConfig } from '#functions/_wiring/limits.ts';
import { wireWebhookAdmin } from '#shared/webhooks/index.ts';

// Composition root: built once per cold start. Each store is built once and shared by the areas' use cases.
const platform = adminPlatform('admin');
const { cfg, logger, table } = platform;
const adminKey =
  cfg.ADMIN_KEY ?? (cfg.ADMIN_KEY_SECRET_ARN ? await readSecret(cfg.ADMIN_KEY_SECRET_ARN, cfg.AWS_REGION) : undefined);
if (!adminKey) throw new Error('Invalid configuration: ADMIN_KEY or ADMIN_KEY_SECRET_ARN is required');

const secretBox = await secretBoxFromConfig(cfg);
const projectStore = new DynamoProjectStore(table);
const tokenStore = new DynamoTokenStore(table);
const channelStore = new DynamoChannelStore(table, secretBox);
// Webhooks, custom integrations and pollers; the webhooks area reads the same store.
const integrationAdmin = wireIntegrationAdmin(platform, {
  secretBox,
  channels: channelStore,
  projects: projectStore,
  tokens: tokenStore,
  allowPrivateDestinations: cfg.webhookAllowPrivate,
});
const integrationStore = integrationAdmin.store;

const creditLedger = new DynamoCreditLedger(table);
const { projects, handlers: projectRouteHandlers } = wireProjectAdmin(platform, {
  tokens: tokenStore,
  credits: creditLedger,
});
const events = eventPublisherFromConfig(cfg);

// The webhooks' delivery log, retries, recover and health chart.
const webhookAdmin = wireWebhookAdmin(platform, {
  projects: projectStore,
  channels: channelStore,
  webhooks: integrationStore,
  events,
});

// Event reports trust a channel they read for a few seconds (one read per burst, not per event); a channel deleted
// here is forgotten at once (shared/messaging/recent-channels.ts).
const reportChannels = rememberChannels(channelStore);
const channels = makeChannelUseCases({
  channels: channelStore,
  forgetChannel: reportChannels.forget,
  messages: new DynamoMessageLog(table),
  projects: projectStore,
  allowPrivateDestinations: cfg.webhookAllowPrivate,
  smtpAllowedPorts: cfg.smtpAllowedPorts,
});

// The sandbox stands in for a provider: a simulated reply or receipt goes the way a provider's report does.
const statuses = new DynamoMessageStatusStore(table);
const conversationStore = new DynamoConversationStore(table, secretBox);
const sandbox = makeSandboxSimulation({
  requireChannel: channels.requireChannel,
  statuses,
  apply: makeApplyReports({
    statuses,
    conversations: conversationStore,
    unsubscribe: makeListUnsubscribe(secretBox),
    events,
    log: { info: (m, extra) => logger.info(m, extra ?? {}) },
  }),
});

// Suppressions, and the conversations the console shows (media URLs signed with this function's credentials).
const conversations = makeConversationQueries({
  conversations: conversationStore,
  media: mediaStoreFromConfig(cfg),
  events,
  onBackgroundError: (what, cause) => logger.error(`${what} failed`, { cause: String(cause) }),
});

// Knowledge files: S3 is loaded on the first upload or delete. Without a bucket or an ingest queue, uploads answer
// 503 and deleting a bot still works.
const unconfigured = (what: string) => () => {
  throw new HttpError(503, 'SERVICE_UNAVAILABLE', `Knowledge storage is not configured (${what}).`);
};
const knowledgeObjects = cfg.BUCKET_KNOWLEDGE
  ? s3KnowledgeObjectStoreOnFirstUse(cfg, cfg.BUCKET_KNOWLEDGE)
  : {
      put: unconfigured('BUCKET_KNOWLEDGE'),
      putStream: unconfigured('BUCKET_KNOWLEDGE'),
      get: unconfigured('BUCKET_KNOWLEDGE'),
      getRange: unconfigured('BUCKET_KNOWLEDGE'),
      getTail: unconfigured('BUCKET_KNOWLEDGE'),
      delete: async () => {},
      deletePrefix: async () => {},
    };
const ingestQueue = cfg.QUEUE_URL_INGEST
  ? new SqsIngestQueue(sqsClient(cfg), cfg.QUEUE_URL_INGEST)
  : { enqueue: unconfigured('QUEUE_URL_INGEST') };
let knowledge: KnowledgeManagement;
const botAdmin = wireBotAdmin(platform, {
  projectExists: async (projectId) => (await projectStore.get(projectId)) !== undefined,
  purgeKnowledge: (botId) => knowledge.purgeBot(botId),
});
knowledge = makeKnowledgeManagement({
  requireBot: botAdmin.bots.requireBot,
  files: new DynamoKnowledgeFileStore(table),
  index: new DynamoKnowledgeIndexStore(table),
  objects: knowledgeObjects,
  queue: ingestQueue,
  // Browser uploads (presigned POST): without a bucket, asking for an upload URL answers 503 like an upload.
  ...(cfg.BUCKET_KNOWLEDGE ? { inbox: s3KnowledgeUploadInboxOnFirstUse(cfg, cfg.BUCKET_KNOWLEDGE) } : {}),
  logger,
});

// A channel's scheduled messages and batches (the console).
const deferredStore = new DynamoDeferredStore(table);
const batchStore = new DynamoBatchStore(table);
// Who may call what: project keys, portal sessions, each route's rule, and the audit log of every change.
const tenancy = wireTenancy(platform, {
  projectExists: async (projectId) => (await projectStore.get(projectId)) !== undefined,
  publicBaseUrl: cfg.PUBLIC_BASE_URL ?? '',
});

/** The management API (`/admin/v1/*`): one function, routed inside. */
export const handler = tenancy.serve({
  adminKey,
  prefix: ADMIN_PREFIX,
  access: adminRouteAccess,
  routes: bindRoutes(adminRouteTable, {
    ...eventHandlers(
      makeReportEvent({
        projects: projectStore,
        channels: reportChannels,
        events,
        limits: tenantLimiterFromConfig(cfg, table),
      }),
    ),
    ...webhookAdmin,
    ...wireCreditUsage(platform, { accountOf: projects.creditAccount }),
    ...projectRouteHandlers,
    // A project key or portal session sees its own project alone in the listing.
    listProjects: async (request) => {
      const own = projectScopeOf(request.event);
      if (own === undefined) return projectRouteHandlers.listProjects(request);
      const found = await projects.requireProject(own);
      const answer = await projectRouteHandlers.getProject({
        ...request,
        params: { projectId: found.projectId },
        query: {},
      });
      return json(200, { items: [JSON.parse(answer.body)] });
    },
    ...channelHandlers(channels, cfg.PUBLIC_BASE_URL ?? ''),
    ...volumeHandlers(
      makeChannelVolume({
        requireChannel: channels.requireChannel,
        scheduled: (channelId, page) => listScheduled(table, channelId, page),
        batches: (channelId, page) => batchStore.list(channelId, page),
        progress: makeBatchProgress({ batches: batchStore, messages: deferredStore }),
        store: deferredStore,
      }),
    ),
    ...conversationHandlers(channels.requireChannel, conversations),
    ...sandboxHandlers(sandbox),
    ...integrationAdmin.handlers,
    ...botAdmin.handlers,
    ...knowledgeHandlers(knowledge),
    ...tenancy.handlers,
  }),
  // Routes declared `idempotent` (event reports, test events) accept Idempotency-Key; the lock outlives the
  // function's 30 s timeout.
  idempotency: idempotencyOnDynamo(table, logger, 40),
});
