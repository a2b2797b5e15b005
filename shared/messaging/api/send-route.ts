import { type CustomTokenAuthPorts, customTokenFunction } from '../../auth/index.ts';
import { jsonObjectBody, type ScopedIdempotency } from '../../http/presets.ts';
import { json } from '../../http/types.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { InvocationMetrics } from '../../kernel/metrics.ts';
import type { makeSendMessage } from '../send-message.ts';
import type { makeScheduleSend } from '../volume/schedule-send.ts';
import { splitSendAt } from '../volume/send-at.ts';

/**
 * `POST /api/integration/generic`: sends one message on the channel bound to the custom token. Checks in this order:
 * token (401) → JSON body (400/413) → channel (404) → payload (400) → opted out (409 RECIPIENT_OPTED_OUT) → WhatsApp
 * window (409 WINDOW_CLOSED) → credits (402) → provider (502, refunded) → 200. With `sendAt` (60 s to 35 days
 * ahead): 202 `scheduled`, sent at that time as a send received then. `Idempotency-Key` replays the first answer and
 * never sends twice.
 */
export function sendHandler(
  observed: { logger: Logger; metrics: InvocationMetrics },
  deps: {
    auth: CustomTokenAuthPorts;
    idempotency: ScopedIdempotency;
    sendMessage: ReturnType<typeof makeSendMessage>;
    scheduleSend: ReturnType<typeof makeScheduleSend>;
  },
) {
  return customTokenFunction({
    logger: observed.logger,
    metrics: observed.metrics,
    ...deps.auth,
    idempotency: deps.idempotency,
    body: jsonObjectBody(),
  }).handler(async (event) => {
    const { body, sendAt, hasSendAt } = splitSendAt(event.parsedBody);
    if (hasSendAt) return json(202, { success: true, ...(await deps.scheduleSend(event.auth, body, sendAt)) });
    return json(200, { success: true, ...(await deps.sendMessage(event.auth, event.parsedBody)) });
  });
}
