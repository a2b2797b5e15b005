import { readSecret } from '#shared/kernel/aws/secrets.ts';
import { s3ObjectStoreOnFirstUse, s3UploadInboxOnFirstUse } from '#shared/kernel/aws/lazy-s3-object-store.ts';
import { DynamoChannelStore, wireMessagingAdmin } from '#shared/messaging/index.ts';
import { DynamoCreditLedger, wireCreditUsage } from '#shared/credits/index.ts';
import { wireIntegrationAdmin } from '#shared/integrations/index.ts';
import { type KnowledgeAdmin, wireKnowledgeAdmin } from '#shared/knowledge/index.ts';
import { DynamoProjectStore, ProjectReadAhead, wireProjectAdmin, wireProjectLimiter } from '#shared/projects/index.ts';
import { DynamoTokenStore } from '#shared/auth/index.ts';
import { bindRoutes } from '#shared/http/router.ts';
import { mediaStoreFromConfig } from '#functions/_wiring/media.ts';
import { eventPublisherFromConfig } from '#functions/_wiring/event-publisher.ts';
import { idempotencyOnDynamo } from '#shared/idempotency/index.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { platform as adminPlatform } from '#functions/_wiring/platform.ts';
import { ADMIN_PREFIX, adminRouteTable } from './routes.ts';
import { adminRouteAccess } from './access.ts';
import { projectScopeOf, wireTenancy } from '#shared/tenancy/index.ts';
import { wireBotAdmin } from '#shared/bots/index.ts';
import { wireWebhookAdmin } from '#shared/webhooks/index.ts';

// Composition root: built once per cold start. Each store is built once and shared by the areas' use cases.
const platform = adminPlatform('admin');
const { cfg, logger, table } = platform;
const adminKey =
  cfg.ADMIN_KEY ?? (cfg.ADMIN_KEY_SECRET_ARN ? await readSecret(cfg.ADMIN_KEY_SECRET_ARN, cfg.AWS_REGION) : undefined);
if (!adminKey) throw new Error('Invalid configuration: ADMIN_KEY or ADMIN_KEY_SECRET_ARN is required');

const secretBox = await secretBoxFromConfig(cfg);
// A request with a project key reads its path's project along with the key (one round trip), and the routes' own
// reads of that project, through this store, are served from that read.
const projectReads = new ProjectReadAhead();
const projectStore = new DynamoProjectStore(table, projectReads);
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
  // A project key or portal session sees its own project alone in the listing.
  ownProjectOf: projectScopeOf,
  store: projectStore,
});
const events = eventPublisherFromConfig(cfg);

// The webhooks' delivery log, retries, recover and health chart.
const webhookAdmin = wireWebhookAdmin(platform, {
  projects: projectStore,
  channels: channelStore,
  webhooks: integrationStore,
  events,
});

// Channels, their sends at volume, suppressions and conversations (media URLs signed with this function's
// credentials), the sandbox, and channel back ends' event reports.
const messagingHandlers = wireMessagingAdmin(platform, {
  secretBox,
  channels: channelStore,
  projects: projectStore,
  events,
  limits: wireProjectLimiter(platform),
  mediaStore: mediaStoreFromConfig(cfg),
  publicBaseUrl: cfg.PUBLIC_BASE_URL ?? '',
  allowPrivateDestinations: cfg.webhookAllowPrivate,
});

// Knowledge files: S3 is loaded on the first upload or delete (the root hands the bucket's stores in).
let knowledge: KnowledgeAdmin;
const botAdmin = wireBotAdmin(platform, {
  projectExists: async (projectId) => (await projectStore.get(projectId)) !== undefined,
  purgeKnowledge: (botId) => knowledge.knowledge.purgeBot(botId),
});
knowledge = wireKnowledgeAdmin(platform, {
  requireBot: botAdmin.bots.requireBot,
  objectsOn: (bucket) => s3ObjectStoreOnFirstUse(cfg, bucket),
  inboxOn: (bucket) => s3UploadInboxOnFirstUse(cfg, bucket),
});

// Who may call what: project keys, portal sessions, each route's rule, and the audit log of every change.
const tenancy = wireTenancy(platform, {
  projectExists: async (projectId) => (await projectStore.get(projectId)) !== undefined,
  publicBaseUrl: cfg.PUBLIC_BASE_URL ?? '',
  readAhead: {
    around: (serve) => projectReads.around(serve),
    along: (projectId) => projectStore.readAlong(projectId),
  },
});

/** The management API (`/admin/v1/*`): one function, routed inside. */
export const handler = tenancy.serve({
  adminKey,
  prefix: ADMIN_PREFIX,
  access: adminRouteAccess,
  routes: bindRoutes(adminRouteTable, {
    ...messagingHandlers,
    ...webhookAdmin,
    ...wireCreditUsage(platform, { accountOf: projects.creditAccount }),
    ...projectRouteHandlers,
    ...integrationAdmin.handlers,
    ...botAdmin.handlers,
    ...knowledge.handlers,
    ...tenancy.handlers,
  }),
  // Routes declared `idempotent` (event reports, test events) accept Idempotency-Key; the lock outlives the
  // function's 30 s timeout.
  idempotency: idempotencyOnDynamo(table, logger, 40),
});
