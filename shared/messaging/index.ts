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
export { MEDIA_URL_SECONDS, type MediaStore } from './media.ts';
export type { MessageRecord } from './message.ts';
export { PAYLOAD_SCHEMAS, validateSendPayload } from './payloads.ts';
export { type MessageProviders, type OutboundMessage, sandboxProvider } from './providers.ts';
export { RECENT_CHANNEL_TTL_MS } from './recent-channels.ts';
export { makeSendMessage } from './send-message.ts';
export { findChannelsByAddress } from './adapters/dynamo-channel-directory.ts';
export { channelFromItem, DynamoChannelStore } from './adapters/dynamo-channel-store.ts';
export { DynamoConversationStore } from './adapters/dynamo-conversation-store.ts';
export { DynamoMessageLog } from './adapters/dynamo-message-log.ts';
export { DynamoMessageStatusStore } from './adapters/dynamo-message-status-store.ts';
export { MAIL_LIMITS, MAX_MAIL_BYTES, parseMail, parseMailHeaders } from './adapters/parse-mail.ts';
export { channelRouteDocs, channelRoutes } from './api/channel-routes.ts';
export { conversationRouteDocs, conversationRoutes } from './api/conversation-routes.ts';
export { eventRouteDocs, eventRoutes } from './api/event-routes.ts';
export { sandboxRouteDocs, sandboxRoutes } from './api/sandbox-routes.ts';
export { messagingOperationDocs } from './api/public-docs.ts';
export { volumeOperationDocs } from './api/volume-docs.ts';
export { volumeRouteDocs, volumeRoutes } from './api/volume-routes.ts';
export { makeSuppressionChanges } from './inbound/opt-outs.ts';
export { makeApplyReports } from './inbound/apply-reports.ts';
export type { ReceivedMessage } from './inbound/report.ts';
export { normaliseTwilio } from './inbound/twilio.ts';
export { normaliseWhatsApp } from './inbound/whatsapp.ts';
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
export { wireConversations, wireInboundWorker, wireMessagingAdmin } from './wiring.ts';
export { wireDueSweeper, wireMessageStatus, wireOutboundWorker, wireSend, wireSendBatch } from './send-wiring.ts';
export { meteredProviders } from './adapters/metered-providers.ts';
export { wireTwilioInbound, wireWhatsAppInbound } from './inbound-wiring.ts';
