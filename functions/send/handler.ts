import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import { customTokenFunction, wireCustomTokenAuth } from '#shared/auth/index.ts';
import { wireProjectLimiter } from '#shared/projects/index.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { routes } from '#shared/contract/routes.ts';
import { idempotencyOnDynamo } from '#shared/idempotency/index.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { sendMessageOn } from '#functions/_wiring/send-message.ts';
import { deferredSendsOn } from '#functions/_wiring/outbound.ts';
import { makeScheduleSend, splitSendAt } from '#shared/messaging/index.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('send');
const metrics = new PowertoolsMetrics('send');
const table = dynamoTable(cfg);
const secretBox = await secretBoxFromConfig(cfg);
const route = routes.find((r) => r.fn === 'send')!;
const sending = sendMessageOn(cfg, {
  table,
  secretBox,
  logger,
  metrics,
  // Leave the function time to refund, record and answer after the provider's last possible moment.
  providerBudgetMs: (route.timeoutSeconds - 5) * 1000,
});
const sendMessage = sending.sendMessage;
// A body with `sendAt` is kept for its time (nothing sent or charged now).
const scheduleSend = makeScheduleSend({
  conversations: sending.conversations,
  accept: deferredSendsOn(cfg, table, logger).accept,
});

/**
 * `POST /api/integration/generic`: sends one message on the channel bound to the custom token. Checks in the
 * contract's order: token (401) → JSON body (400/413) → channel (404) → payload (400) → opted out (409
 * RECIPIENT_OPTED_OUT) → WhatsApp window (409 WINDOW_CLOSED) → credits (402) → provider (502, refunded) → 200.
 * With `sendAt` (60 s to 35 days ahead): 202 `scheduled`, sent at that time as a send received then. `Idempotency-Key` replays the first answer and never sends twice.
 */
export const handler = customTokenFunction({
  logger,
  metrics,
  ...wireCustomTokenAuth({ table }, { sends: wireProjectLimiter({ table }) }),
  idempotency: idempotencyOnDynamo(table, logger, route.timeoutSeconds + 10),
  body: jsonObjectBody(),
}).handler(async (event) => {
  const { body, sendAt, hasSendAt } = splitSendAt(event.parsedBody);
  if (hasSendAt) return json(202, { success: true, ...(await scheduleSend(event.auth, body, sendAt)) });
  return json(200, { success: true, ...(await sendMessage(event.auth, event.parsedBody)) });
});
