import { config, requiredSetting } from '#shared/config/config.ts';
import { readSecret } from '#shared/adapters/aws/secrets.ts';
import { DynamoBotStore } from '#shared/adapters/dynamodb/bot-store.ts';
import { DynamoChannelStore } from '#shared/adapters/dynamodb/channel-store.ts';
import { DynamoCreditLedger } from '#shared/adapters/dynamodb/credit-ledger.ts';
import { DynamoDeliveryStore } from '#shared/adapters/dynamodb/delivery-store.ts';
import { DynamoIntegrationStore } from '#shared/adapters/dynamodb/integration-store.ts';
import { DynamoKnowledgeFileStore } from '#shared/adapters/dynamodb/knowledge-file-store.ts';
import { DynamoMessageLog } from '#shared/adapters/dynamodb/message-log.ts';
import { DynamoProjectStore } from '#shared/adapters/dynamodb/project-store.ts';
import { DynamoTokenStore } from '#shared/adapters/dynamodb/token-store.ts';
import {
  s3KnowledgeObjectStoreOnFirstUse,
  s3KnowledgeUploadInboxOnFirstUse,
} from '#shared/adapters/s3/on-first-use.ts';
import { sqsClient } from '#shared/adapters/sqs/clients.ts';
import { SqsIngestQueue } from '#shared/adapters/sqs/ingest-queue.ts';
import { SqsDeliveryQueue } from '#shared/adapters/sqs/webhook-queues.ts';
import { makeBotUseCases } from '#shared/bots/use-cases.ts';
import { HttpError } from '#shared/http/errors.ts';
import { adminFunction } from '#shared/http/presets.ts';
import { bindRoutes } from '#shared/http/router.ts';
import { makeIntegrationUseCases } from '#shared/integrations/use-cases.ts';
import { makeKnowledgeManagement, type KnowledgeManagement } from '#shared/knowledge/manage.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { makeChannelUseCases } from '#shared/messaging/channel-use-cases.ts';
import { makeProjectUseCases } from '#shared/projects/use-cases.ts';
import { makeWebhookAdmin } from '#shared/webhooks/admin.ts';
import { makeWebhookHealthReport } from '#shared/webhooks/health-report.ts';
import { makeCreditUsage } from '#shared/credits/usage.ts';
import { DynamoWebhookAttemptStats } from '#shared/adapters/dynamodb/webhook-attempt-stats.ts';
import { eventPublisherFromConfig } from '#functions/_wiring/event-publisher.ts';
import { idempotencyOnDynamo } from '#functions/_wiring/idempotency.ts';
import { recoverOnDynamo } from '#functions/_wiring/recover.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { ADMIN_PREFIX, adminRouteTable } from './routes.ts';
import { botHandlers } from './routes/bots.ts';
import { channelHandlers } from './routes/channels.ts';
import { deliveryHandlers } from './routes/deliveries.ts';
import { eventHandlers } from './routes/events.ts';
import { integrationHandlers } from './routes/integrations.ts';
import { projectHandlers } from './routes/projects.ts';
import { recoverHandlers } from './routes/recover.ts';
import { usageHandlers } from './routes/usage.ts';

// Composition root: built once per cold start. Each store is built once and shared by the areas' use cases.
const cfg = config();
const logger = createLogger('admin');
const adminKey =
  cfg.ADMIN_KEY ?? (cfg.ADMIN_KEY_SECRET_ARN ? await readSecret(cfg.ADMIN_KEY_SECRET_ARN, cfg.AWS_REGION) : undefined);
if (!adminKey) throw new Error('Invalid configuration: ADMIN_KEY or ADMIN_KEY_SECRET_ARN is required');

const table = dynamoTable(cfg);
const secretBox = await secretBoxFromConfig(cfg);
const projectStore = new DynamoProjectStore(table);
const tokenStore = new DynamoTokenStore(table);
const channelStore = new DynamoChannelStore(table, secretBox);
const integrationStore = new DynamoIntegrationStore(table, secretBox);

const creditLedger = new DynamoCreditLedger(table);
const projects = makeProjectUseCases({
  projects: projectStore,
  tokens: tokenStore,
  credits: creditLedger,
});
const creditUsage = makeCreditUsage({ projects: projectStore, usage: creditLedger });
const webhookHealth = makeWebhookHealthReport({
  projects: projectStore,
  webhooks: integrationStore,
  stats: new DynamoWebhookAttemptStats(table),
});

const webhookAdmin = makeWebhookAdmin({
  projects: projectStore,
  channels: channelStore,
  webhooks: integrationStore,
  deliveries: new DynamoDeliveryStore(table),
  events: eventPublisherFromConfig(cfg),
  queue: new SqsDeliveryQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_DELIVERIES')),
});

// API Gateway gives a request 29 s; the rest of a very large recover goes on in the deliver worker.
const recover = recoverOnDynamo(cfg, table, integrationStore, 15_000);

const channels = makeChannelUseCases({
  channels: channelStore,
  messages: new DynamoMessageLog(table),
  projects: projectStore,
  allowPrivateDestinations: cfg.webhookAllowPrivate,
  smtpAllowedPorts: cfg.smtpAllowedPorts,
});

const integrations = makeIntegrationUseCases({
  integrations: integrationStore,
  channels: channelStore,
  projects: projectStore,
  tokens: tokenStore,
  allowPrivateDestinations: cfg.webhookAllowPrivate,
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
      get: unconfigured('BUCKET_KNOWLEDGE'),
      delete: async () => {},
      deletePrefix: async () => {},
    };
const ingestQueue = cfg.QUEUE_URL_INGEST
  ? new SqsIngestQueue(sqsClient(cfg), cfg.QUEUE_URL_INGEST)
  : { enqueue: unconfigured('QUEUE_URL_INGEST') };
let knowledge: KnowledgeManagement;
const bots = makeBotUseCases({
  bots: new DynamoBotStore(table),
  projectExists: async (projectId) => (await projectStore.get(projectId)) !== undefined,
  purgeKnowledge: (botId) => knowledge.purgeBot(botId),
});
knowledge = makeKnowledgeManagement({
  requireBot: bots.requireBot,
  files: new DynamoKnowledgeFileStore(table),
  objects: knowledgeObjects,
  queue: ingestQueue,
  // Browser uploads (presigned POST): without a bucket, asking for an upload URL answers 503 like an upload.
  ...(cfg.BUCKET_KNOWLEDGE ? { inbox: s3KnowledgeUploadInboxOnFirstUse(cfg, cfg.BUCKET_KNOWLEDGE) } : {}),
  logger,
});

/** The management API (`/admin/v1/*`): one function, routed inside. */
export const handler = adminFunction({
  logger,
  adminKey,
  prefix: ADMIN_PREFIX,
  routes: bindRoutes(adminRouteTable, {
    ...eventHandlers(webhookAdmin),
    ...deliveryHandlers(webhookAdmin),
    ...recoverHandlers(recover),
    ...usageHandlers({ webhookHealth, creditUsage }),
    ...projectHandlers(projects),
    ...channelHandlers(channels),
    ...integrationHandlers(integrations),
    ...botHandlers(bots, knowledge),
  }),
  // Routes declared `idempotent` (event reports, test events) accept Idempotency-Key; the lock outlives the
  // function's 30 s timeout.
  idempotency: idempotencyOnDynamo(table, logger, 40),
});
