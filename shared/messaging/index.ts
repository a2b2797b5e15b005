/**
 * Messaging: channels, sending through providers (now, scheduled, in batches), message status, conversations and
 * suppressions, and what providers report back (inbound). The only way into the area from outside it.
 */
export type { Channel, ChannelStore } from './channel.ts';
export {
  conversationIdOf,
  type ConversationMessage,
  type ConversationStore,
  type SendLookup,
  type SendLookupKeys,
  type Suppression,
  type SuppressionChange,
} from './conversation.ts';
export { makeConversationQueries } from './conversations.ts';
export {
  ChannelNotFoundError,
  InvalidSignatureError,
  MessageNotFoundError,
  NoChannelCreditsError,
  NotSandboxChannelError,
  NotScheduledError,
  ProviderFailedError,
  RecipientOptedOutError,
  WindowClosedError,
} from './errors.ts';
export { makeGetMessage } from './get-message.ts';
export { makeListUnsubscribe } from './list-unsubscribe.ts';
export { MEDIA_URL_SECONDS, type MediaStore } from './media.ts';
export { messageStatusView } from './message-status.ts';
export type { MessageRecord } from './message.ts';
export { PAYLOAD_SCHEMAS, validateSendPayload } from './payloads.ts';
export { type MessageProvider, type MessageProviders, type OutboundMessage, sandboxProvider } from './providers.ts';
export { RECENT_CHANNEL_TTL_MS } from './recent-channels.ts';
export { makeSendMessage } from './send-message.ts';
export { DynamoBatchStore } from './adapters/dynamo-batch-store.ts';
export { findChannelsByAddress } from './adapters/dynamo-channel-directory.ts';
export { DynamoChannelPacer } from './adapters/dynamo-channel-pacer.ts';
export { channelFromItem, DynamoChannelStore } from './adapters/dynamo-channel-store.ts';
export { DynamoConversationStore } from './adapters/dynamo-conversation-store.ts';
export { DynamoDeferredStore } from './adapters/dynamo-deferred-store.ts';
export { DynamoMessageLog } from './adapters/dynamo-message-log.ts';
export { DynamoMessageStatusStore } from './adapters/dynamo-message-status-store.ts';
export { MAIL_LIMITS, MAX_MAIL_BYTES, parseMail, parseMailHeaders } from './adapters/parse-mail.ts';
export { makeProviderPost } from './adapters/provider-client.ts';
export { SesEmailSender } from './adapters/ses-email-sender.ts';
export { SmtpEmailSender } from './adapters/smtp-sender.ts';
export { SqsOutboundQueue } from './adapters/sqs-outbound-queue.ts';
export { TwilioSmsSender } from './adapters/twilio-sms-sender.ts';
export { WhatsAppCloudSender } from './adapters/whatsapp-cloud-sender.ts';
export { channelRouteDocs, channelRoutes } from './api/channel-routes.ts';
export { conversationRouteDocs, conversationRoutes } from './api/conversation-routes.ts';
export { eventRouteDocs, eventRoutes } from './api/event-routes.ts';
export { sandboxRouteDocs, sandboxRoutes } from './api/sandbox-routes.ts';
export { messagingOperationDocs } from './api/public-docs.ts';
export { volumeOperationDocs } from './api/volume-docs.ts';
export { volumeRouteDocs, volumeRoutes } from './api/volume-routes.ts';
export type { AcceptInbound } from './inbound/accept-inbound.ts';
export { makeSuppressionChanges } from './inbound/opt-outs.ts';
export { makeApplyReports } from './inbound/apply-reports.ts';
export type { ReceivedMessage } from './inbound/report.ts';
export { normaliseTwilio } from './inbound/twilio.ts';
export { normaliseWhatsApp } from './inbound/whatsapp.ts';
export { makeAcceptBatch } from './volume/accept-batch.ts';
export { makeAcceptDeferred } from './volume/accept-deferred.ts';
export { makeBatchProgress } from './volume/batch.ts';
export { DUE_LOOKAHEAD_MS } from './volume/deferred.ts';
export { makeManageScheduled } from './volume/manage-scheduled.ts';
export { paceOf } from './volume/pace.ts';
export { makeScheduleSend } from './volume/schedule-send.ts';
export { splitSendAt } from './volume/send-at.ts';
export { makeSendDeferred } from './volume/send-deferred.ts';
export { makeSweepDue } from './volume/sweep-due.ts';
export { makeWorkOutbound, type OutboundRecord } from './volume/work-outbound.ts';
export {
  channel,
  channelPage,
  channelType,
  conversation,
  conversationMessage,
  conversationMessagePage,
  eventAccepted,
  messageMedia,
  messageStatus,
  outboxMessage,
  outboxPage,
  sendResult,
  suppression,
  suppressionPage,
} from './api/schemas.ts';
export { messagingSettings } from './settings.ts';
export { wireAcceptInbound, wireInboundWorker, wireMessagingAdmin } from './wiring.ts';
