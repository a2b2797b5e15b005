import type { MiddlewareObj } from '@middy/core';
import { config } from '#shared/config/config.ts';
import { dynamoDocumentClient } from '#shared/adapters/aws/clients.ts';
import { DynamoChannelStore } from '#shared/adapters/dynamodb/channel-store.ts';
import { DynamoMessageLog } from '#shared/adapters/dynamodb/message-log.ts';
import { DynamoTokenStore } from '#shared/adapters/dynamodb/token-store.ts';
import { SmtpEmailSender } from '#shared/adapters/smtp/smtp-sender.ts';
import { makeProviderPost } from '#shared/adapters/http/provider-client.ts';
import { TwilioSmsSender } from '#shared/adapters/twilio/sms-sender.ts';
import { WhatsAppCloudSender } from '#shared/adapters/whatsapp-cloud/whatsapp-sender.ts';
import { makeAuthenticateCustomToken } from '#shared/auth/authenticate.ts';
import type { CustomTokenGrant } from '#shared/auth/token-store.ts';
import { HttpError } from '#shared/http/errors.ts';
import { httpFunction, jsonBody } from '#shared/http/middleware.ts';
import { json, type HttpEvent, type HttpResult } from '#shared/http/types.ts';
import { idempotencyFromConfig } from '#shared/idempotency/from-config.ts';
import { secretBoxFromConfig } from '#shared/integrations/secret-box-from-config.ts';
import { createLogger, type Logger } from '#shared/logging/logger.ts';
import { sandboxProvider } from '#shared/messaging/providers.ts';
import { makeSendMessage } from '#shared/messaging/send-message.ts';
import { routes } from '#shared/resources/routes.ts';
import { eventPublisherFromConfig } from '#shared/webhooks/event-publisher-from-config.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('send');
const table = { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
const secretBox = await secretBoxFromConfig(cfg);
const route = routes.find((r) => r.fn === 'send')!;
const userAgent = 'Switchboard/0.1.0';
// Provider base URLs and SMTP hosts are customer settings: the webhooks' SSRF guard applies (off locally).
const post = makeProviderPost({ allowPrivate: cfg.webhookAllowPrivate });

const sendMessage = makeSendMessage({
  channels: new DynamoChannelStore(table, secretBox),
  messages: new DynamoMessageLog(table),
  providers: {
    sandbox: sandboxProvider,
    smtp: new SmtpEmailSender({
      timeoutMs: cfg.SEND_PROVIDER_TIMEOUT_MS,
      allowPrivate: cfg.webhookAllowPrivate,
      allowedPorts: cfg.smtpAllowedPorts,
    }),
    twilio: new TwilioSmsSender({ timeoutMs: cfg.SEND_PROVIDER_TIMEOUT_MS, userAgent, post }),
    'whatsapp-cloud': new WhatsAppCloudSender({ timeoutMs: cfg.SEND_PROVIDER_TIMEOUT_MS, userAgent, post }),
  },
  // The webhooks area's publisher: one message format, events batched into SendMessageBatch, large bodies to S3.
  events: eventPublisherFromConfig(cfg),
  // Leave the function time to refund, record and answer after the provider's last possible moment.
  providerBudgetMs: (route.timeoutSeconds - 5) * 1000,
  onBackgroundError: (what, cause) => logger.error(`${what} failed`, { cause: String(cause) }),
});

/** The send endpoint's auth: a custom token, else 401 ERR_NO_PERMISSION whatever the reason. */
function customTokenAuth(log: Logger): MiddlewareObj<HttpEvent<unknown, CustomTokenGrant>, HttpResult> {
  const authenticate = makeAuthenticateCustomToken({ tokens: new DynamoTokenStore(table) });
  return {
    name: 'customTokenAuth',
    before: async (request) => {
      let grant: CustomTokenGrant | undefined;
      try {
        grant = await authenticate(request.event.normalizedHeaders.authorization);
      } catch (cause) {
        log.error('token store unreachable', { cause: String(cause) });
      }
      if (!grant)
        throw new HttpError(
          401,
          'ERR_NO_PERMISSION',
          'A valid custom integration token is required: "Authorization: Bearer <CUSTOM_TOKEN>".',
        );
      request.event.auth = grant;
    },
  };
}

/**
 * `POST /api/integration/generic`: sends one message on the channel bound to the custom token. Checks in the
 * contract's order: token (401) → JSON body (400/413) → channel (404) → payload (400) → credits (402) → provider
 * (502, refunded) → 200. `Idempotency-Key` replays the first answer and never sends twice.
 */
export const handler = httpFunction(logger)
  .use(customTokenAuth(logger))
  .use(
    idempotencyFromConfig(table, logger, {
      scope: (event) => `send:${(event.auth as CustomTokenGrant).integrationId}`,
      lockSeconds: route.timeoutSeconds + 10,
    }),
  )
  .use(jsonBody())
  .handler(async (event: HttpEvent) => {
    const result = await sendMessage((event as HttpEvent<unknown, CustomTokenGrant>).auth, event.parsedBody);
    return json(200, { success: true, ...result });
  });
