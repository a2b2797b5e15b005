import { botsApiFunction, wireBotsApiAuth } from '#shared/auth/index.ts';
import { wireCompletion } from '#shared/completion/index.ts';
import { routes } from '#shared/contract/routes.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { completionPorts } from '#functions/_wiring/completion-ports.ts';
import { idempotencyOnDynamo } from '#shared/idempotency/index.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';

// Composition root: built once per cold start.
const platform = meteredPlatform('completion');
const { logger, metrics, table } = platform;
// A retry may take over an Idempotency-Key only once this request can no longer be running: its timeout plus margin.
const lockSeconds = (routes.find((r) => r.fn === 'completion')?.timeoutSeconds ?? 100) + 10;

/** `POST /api/v1/ai/completion`: generation with a bot or standalone instructions, 1 bot credit, refunded on failure. */
export const handler = botsApiFunction({
  logger,
  metrics,
  auth: wireBotsApiAuth(platform),
  idempotency: idempotencyOnDynamo(table, logger, lockSeconds),
  body: jsonObjectBody(),
}).handler(wireCompletion(platform, await completionPorts(platform)));
