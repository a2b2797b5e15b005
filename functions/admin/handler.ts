import { config } from '#shared/config/config.ts';
import { dynamoDocumentClient } from '#shared/adapters/aws/clients.ts';
import { readSecret } from '#shared/adapters/aws/secrets.ts';
import { DynamoCreditLedger } from '#shared/adapters/dynamodb/credit-ledger.ts';
import { DynamoProjectStore } from '#shared/adapters/dynamodb/project-store.ts';
import { DynamoTokenStore } from '#shared/adapters/dynamodb/token-store.ts';
import { adminAuth } from '#shared/http/admin-auth.ts';
import { httpFunction } from '#shared/http/middleware.ts';
import { idempotencyFromConfig } from '#shared/idempotency/from-config.ts';
import { createRouter, type Route } from '#shared/http/router.ts';
import type { HttpEvent } from '#shared/http/types.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { makeProjectUseCases } from '#shared/projects/use-cases.ts';
import { projectRoutes } from './routes/projects.ts';
import { botRoutesFromConfig } from './routes/bots.ts';
import { secretBoxFromConfig } from '#shared/integrations/secret-box-from-config.ts';
import { channelRoutesFromConfig } from './routes/channels.ts';
import { integrationRoutesFromConfig } from './routes/integrations.ts';
import { eventRoutes, webhookAdminFromConfig } from './routes/events.ts';
import { deliveryRoutes } from './routes/deliveries.ts';
import { recoverFromConfig, recoverRoutes } from './routes/recover.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('admin');
const adminKey =
  cfg.ADMIN_KEY ?? (cfg.ADMIN_KEY_SECRET_ARN ? await readSecret(cfg.ADMIN_KEY_SECRET_ARN, cfg.AWS_REGION) : undefined);
if (!adminKey) throw new Error('Invalid configuration: ADMIN_KEY or ADMIN_KEY_SECRET_ARN is required');

const table = { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
const projects = makeProjectUseCases({
  projects: new DynamoProjectStore(table),
  tokens: new DynamoTokenStore(table),
  credits: new DynamoCreditLedger(table),
});

const secretBox = await secretBoxFromConfig(cfg);
const webhookAdmin = webhookAdminFromConfig(cfg, table, secretBox);
/** Every management API route; the OpenAPI document (`shared/openapi`) is generated from this list. */
export const adminRoutes: Route[] = [
  ...eventRoutes(webhookAdmin),
  ...deliveryRoutes(webhookAdmin),
  ...recoverRoutes(recoverFromConfig(cfg, table, secretBox)),
  ...projectRoutes(projects),
  ...channelRoutesFromConfig(cfg, table, secretBox),
  ...integrationRoutesFromConfig(cfg, table, secretBox),
  ...botRoutesFromConfig(cfg, table, logger),
];
// Routes marked `idempotent` (event reports, test events) accept Idempotency-Key: one admin key per deployment, so
// one scope; the lock outlives the function's 30 s timeout.
const dispatch = createRouter('/admin/v1', adminRoutes, {
  idempotency: idempotencyFromConfig(table, logger, { scope: () => 'admin', lockSeconds: 40 }),
});

/** The management API (`/admin/v1/*`): one function, routed inside. */
export const handler = httpFunction(logger)
  .use(adminAuth(adminKey))
  .handler(async (event: HttpEvent) => dispatch(event));
