import type { Config } from '#shared/kernel/config.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import type { Logger } from '#shared/kernel/logger.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import type { SecretBox } from '#shared/kernel/secret-box.ts';
import {
  DynamoChannelStore,
  DynamoConversationStore,
  DynamoMessageLog,
  DynamoMessageStatusStore,
  makeListUnsubscribe,
  makeProviderPost,
  makeSendMessage,
  sandboxProvider,
  SesEmailSender,
  SmtpEmailSender,
  TwilioSmsSender,
  WhatsAppCloudSender,
  messagingSettings,
} from '#shared/messaging/index.ts';
import { eventPublisherFromConfig } from './event-publisher.ts';
import { meteredProviders } from './metered.ts';
import { USER_AGENT } from './user-agent.ts';

/**
 * The send use case as every function that sends builds it (the send route, the outbound worker): the channel and
 * its contacts in one read, the providers with their deadlines (customer hosts behind the SSRF guard), the message
 * log and the event publisher. `providerBudgetMs`: the provider's whole budget within the function's timeout.
 */
export function sendMessageOn(
  cfg: Config,
  parts: { table: DynamoTable; secretBox: SecretBox; logger: Logger; metrics: Metrics; providerBudgetMs: number },
) {
  const { table, secretBox, logger } = parts;
  const settings = messagingSettings.read();
  // Provider base URLs and SMTP hosts are customer settings: the webhooks' SSRF guard applies (off locally).
  const post = makeProviderPost({ allowPrivate: cfg.webhookAllowPrivate });
  const conversations = new DynamoConversationStore(table, secretBox);
  const channels = new DynamoChannelStore(table, secretBox);
  const statuses = new DynamoMessageStatusStore(table);
  const events = eventPublisherFromConfig(cfg);
  const sendMessage = makeSendMessage({
    // The channel with its contacts' window, suppression and mail-thread items: one BatchGetItem.
    conversations,
    channels,
    messages: new DynamoMessageLog(table),
    statuses,
    providers: meteredProviders(
      {
        sandbox: sandboxProvider,
        smtp: new SmtpEmailSender({
          timeoutMs: settings.SEND_PROVIDER_TIMEOUT_MS,
          allowPrivate: cfg.webhookAllowPrivate,
          allowedPorts: settings.smtpAllowedPorts,
          // Each recipient's own unsubscribe address, keyed per channel by the deployment's key.
          unsubscribe: makeListUnsubscribe(secretBox),
        }),
        // The deployment's own credentials; the configuration set whose events come back to the inbound worker.
        ses: new SesEmailSender({
          // SES is AWS's own API, not a customer's host: its calls get the SDK's usual 10 s whatever the setting.
          timeoutMs: 10_000,
          region: cfg.AWS_REGION ?? 'us-east-1',
          ...(cfg.SES_ENDPOINT ? { endpoint: cfg.SES_ENDPOINT } : {}),
          ...(cfg.SES_CONFIGURATION_SET ? { configurationSet: cfg.SES_CONFIGURATION_SET } : {}),
        }),
        twilio: new TwilioSmsSender({ timeoutMs: settings.SEND_PROVIDER_TIMEOUT_MS, userAgent: USER_AGENT, post }),
        'whatsapp-cloud': new WhatsAppCloudSender({
          timeoutMs: settings.SEND_PROVIDER_TIMEOUT_MS,
          userAgent: USER_AGENT,
          post,
        }),
      },
      parts.metrics,
    ),
    // The webhooks area's publisher: one message format, events batched into SendMessageBatch, large bodies to S3.
    events,
    providerBudgetMs: parts.providerBudgetMs,
    onBackgroundError: (what, cause) => logger.error(`${what} failed`, { cause: String(cause) }),
  });
  return { sendMessage, conversations, channels, statuses, events };
}
