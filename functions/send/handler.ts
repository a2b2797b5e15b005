import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import { DynamoChannelStore } from '#shared/messaging/adapters/dynamo-channel-store.ts';
import { DynamoConversationStore } from '#shared/messaging/adapters/dynamo-conversation-store.ts';
import { DynamoMessageStatusStore } from '#shared/messaging/adapters/dynamo-message-status-store.ts';
import { DynamoMessageLog } from '#shared/messaging/adapters/dynamo-message-log.ts';
import { DynamoTokenStore } from '#shared/auth/adapters/dynamo-token-store.ts';
import { SmtpEmailSender } from '#shared/messaging/adapters/smtp-sender.ts';
import { makeListUnsubscribe } from '#shared/messaging/list-unsubscribe.ts';
import { makeProviderPost } from '#shared/messaging/adapters/provider-client.ts';
import { TwilioSmsSender } from '#shared/messaging/adapters/twilio-sms-sender.ts';
import { WhatsAppCloudSender } from '#shared/messaging/adapters/whatsapp-cloud-sender.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { customTokenFunction } from '#shared/auth/api/presets.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { sandboxProvider } from '#shared/messaging/providers.ts';
import { makeSendMessage } from '#shared/messaging/send-message.ts';
import { routes } from '#shared/contract/routes.ts';
import { eventPublisherFromConfig } from '#functions/_wiring/event-publisher.ts';
import { idempotencyOnDynamo } from '#shared/idempotency/index.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { meteredProviders } from '#functions/_wiring/metered.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { USER_AGENT } from '#functions/_wiring/user-agent.ts';
import { customTokenLimitsFromConfig } from '#functions/_wiring/limits.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('send');
const metrics = new PowertoolsMetrics('send');
const table = dynamoTable(cfg);
const secretBox = await secretBoxFromConfig(cfg);
const route = routes.find((r) => r.fn === 'send')!;
// Provider base URLs and SMTP hosts are customer settings: the webhooks' SSRF guard applies (off locally).
const post = makeProviderPost({ allowPrivate: cfg.webhookAllowPrivate });

const sendMessage = makeSendMessage({
  // The channel with its contacts' window, suppression and mail-thread items: one BatchGetItem.
  conversations: new DynamoConversationStore(table, secretBox),
  channels: new DynamoChannelStore(table, secretBox),
  messages: new DynamoMessageLog(table),
  statuses: new DynamoMessageStatusStore(table),
  providers: meteredProviders(
    {
      sandbox: sandboxProvider,
      smtp: new SmtpEmailSender({
        timeoutMs: cfg.SEND_PROVIDER_TIMEOUT_MS,
        allowPrivate: cfg.webhookAllowPrivate,
        allowedPorts: cfg.smtpAllowedPorts,
        // Each recipient's own unsubscribe address, keyed per channel by the deployment's key.
        unsubscribe: makeListUnsubscribe(secretBox),
      }),
      twilio: new TwilioSmsSender({ timeoutMs: cfg.SEND_PROVIDER_TIMEOUT_MS, userAgent: USER_AGENT, post }),
      'whatsapp-cloud': new WhatsAppCloudSender({
        timeoutMs: cfg.SEND_PROVIDER_TIMEOUT_MS,
        userAgent: USER_AGENT,
        post,
      }),
    },
    metrics,
  ),
  // The webhooks area's publisher: one message format, events batched into SendMessageBatch, large bodies to S3.
  events: eventPublisherFromConfig(cfg),
  // Leave the function time to refund, record and answer after the provider's last possible moment.
  providerBudgetMs: (route.timeoutSeconds - 5) * 1000,
  onBackgroundError: (what, cause) => logger.error(`${what} failed`, { cause: String(cause) }),
});

/**
 * `POST /api/integration/generic`: sends one message on the channel bound to the custom token. Checks in the
 * contract's order: token (401) → JSON body (400/413) → channel (404) → payload (400) → opted out (409
 * RECIPIENT_OPTED_OUT) → WhatsApp window (409 WINDOW_CLOSED) → credits (402) → provider (502, refunded) → 200. `Idempotency-Key` replays the first answer and never sends twice.
 */
export const handler = customTokenFunction({
  logger,
  metrics,
  tokens: new DynamoTokenStore(table),
  limits: customTokenLimitsFromConfig(cfg, table, { sends: true }),
  idempotency: idempotencyOnDynamo(table, logger, route.timeoutSeconds + 10),
  body: jsonObjectBody(),
}).handler(async (event) => json(200, { success: true, ...(await sendMessage(event.auth, event.parsedBody)) }));
