import { wireCustomTokenAuth } from '#shared/auth/index.ts';
import { routes } from '#shared/contract/routes.ts';
import { idempotencyOnDynamo } from '#shared/idempotency/index.ts';
import { wireSend } from '#shared/messaging/index.ts';
import { wireProjectLimiter } from '#shared/projects/index.ts';
import { eventPublisherFromConfig } from '#functions/_wiring/event-publisher.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { USER_AGENT } from '#functions/_wiring/user-agent.ts';

// Composition root: built once per cold start.
const platform = meteredPlatform('send');
const { cfg, logger, table } = platform;
const route = routes.find((r) => r.fn === 'send')!;

/**
 * `POST /api/integration/generic`: one message sent on the custom token's channel now, or kept for its `sendAt`
 * (shared/messaging/api/send-route.ts). Counted against the token's limit and the project's sends a second.
 */
export const handler = wireSend(platform, {
  auth: wireCustomTokenAuth(platform, { sends: wireProjectLimiter(platform) }),
  idempotency: idempotencyOnDynamo(table, logger, route.timeoutSeconds + 10),
  secretBox: await secretBoxFromConfig(cfg),
  events: eventPublisherFromConfig(cfg),
  userAgent: USER_AGENT,
});
