/** Messaging: channels, sending through providers, message status, and what providers report back (inbound). */
export {
  type Channel,
  type ChannelChange,
  CHANNEL_TYPES,
  channelAddressProblem,
  type ChannelStore,
  type ChannelType,
  inboundView,
  type ProviderConfig,
  type ProviderKind,
  PROVIDERS_BY_CHANNEL_TYPE,
  providerView,
  type SandboxProvider,
  type SmtpProvider,
  type TwilioProvider,
  type WhatsAppCloudProvider,
} from './channel.ts';
export {
  type ConversationMessage,
  type ConversationStore,
  type ConversationWindow,
  conversationIdOf,
  DEFAULT_OPT_IN_KEYWORDS,
  DEFAULT_OPT_OUT_KEYWORDS,
  KEYWORD_CHANNEL_TYPES,
  keywordIntent,
  keywordListProblem,
  keywordsOf,
  normaliseContact,
  type SendLookup,
  type SendLookupKeys,
  type Suppression,
  type SuppressionChange,
  type SuppressionReason,
  WINDOW_MS,
  windowOf,
} from './conversation.ts';
export {
  type ConversationQueries,
  type ConversationQueriesDeps,
  type ConversationView,
  makeConversationQueries,
} from './conversations.ts';
export {
  ChannelNotFoundError,
  InvalidSignatureError,
  MessageNotFoundError,
  NoChannelCreditsError,
  NotSandboxChannelError,
  ProviderFailedError,
  RecipientOptedOutError,
  WindowClosedError,
} from './errors.ts';
export { makeGetMessage } from './get-message.ts';
export { type AcceptInbound, type AcceptInboundDeps, makeAcceptInbound } from './inbound/accept-inbound.ts';
export { cacheChannels } from './inbound/channel-cache.ts';
export { type CollectMedia, type CollectMediaDeps, makeCollectMedia } from './inbound/collect-media.ts';
export { type DeliveryStatusReport, type HardBounce, parseDeliveryStatus } from './inbound/dsn.ts';
export {
  type ApplyReportsDeps,
  inboundMessageId,
  makeApplyReports,
  makeProcessInbound,
  type ProcessInbound,
  type ProcessInboundDeps,
  receivedIdentity,
  type SandboxStatusReport,
} from './inbound/process-inbound.ts';
export { type ListUnsubscribe, makeListUnsubscribe, mailboxOf, UNSUBSCRIBE_SUBJECT } from './list-unsubscribe.ts';
export {
  type AuthenticationResult,
  type InboundReport,
  INLINE_REPORT_BYTES,
  type MailAuthentication,
  type NormalisedReport,
  type ReceivedMessage,
  reportKey,
  type SesReceipt,
  type StatusReport,
} from './inbound/report.ts';
export {
  makeSandboxSimulation,
  type SandboxSimulation,
  type SimulatedInbound,
  type SimulatedStatus,
} from './inbound/sandbox.ts';
export {
  authenticationResult,
  reportsFromSesNotification,
  type SesNotificationLog,
  UNCHECKED_MAIL,
  withDelivery,
} from './inbound/ses.ts';
export {
  metaSignature,
  sameBytes,
  twilioSignature,
  twilioUrlSpellings,
  verifyMetaSignature,
  verifyTwilioSignature,
  verifyTwilioSignatureOfAny,
} from './inbound/signatures.ts';
export { normaliseTwilio } from './inbound/twilio.ts';
export { normaliseWhatsApp } from './inbound/whatsapp.ts';
export {
  type ChannelDeps,
  type ChannelUseCases,
  type CreateChannelInput,
  makeChannelUseCases,
} from './manage-channels.ts';
export { messageIdsIn } from './mail-threads.ts';
export {
  allowedMediaType,
  bareContentType,
  type FetchedMedia,
  MAX_MEDIA_BYTES,
  MAX_MEDIA_ITEMS,
  MEDIA_RETENTION_DAYS,
  MEDIA_URL_SECONDS,
  MediaFetchError,
  type MediaFetcher,
  mediaKey,
  type MediaReference,
  type MediaStore,
  type MediaView,
  mediaView,
  safeFileName,
  type StoredMedia,
} from './media.ts';
export {
  canAdvance,
  type MessageStatus,
  type MessageStatusRecord,
  type MessageStatusStore,
  messageStatusView,
  messageView,
  PREVIEW_CHARS,
  previewOf,
  type OutboundStatus,
  type ProviderIdTarget,
  STATUS_RANK,
  type StatusChange,
} from './message-status.ts';
export type { MessageLog, MessageRecord, OutboxEntry, OutboxPage } from './message.ts';
export {
  emailPayload,
  type EmailPayload,
  PAYLOAD_SCHEMAS,
  type PayloadValidation,
  SEND_UNKNOWN_FIELD_MESSAGES,
  type SendPayload,
  smsPayload,
  type SmsPayload,
  validateSendPayload,
  whatsappPayload,
  type WhatsAppPayload,
  whatsappTemplate,
} from './payloads.ts';
export {
  callTimeoutMs,
  describeFetchFailure,
  excerpt,
  type MessageProvider,
  type MessageProviders,
  type OutboundMessage,
  ProviderError,
  type ProviderReceipt,
  sandboxProvider,
} from './providers.ts';
export {
  RECENT_CHANNEL_TTL_MS,
  RECENT_CHANNELS_MAX,
  type RecentChannels,
  rememberChannels,
} from './recent-channels.ts';
export { makeReportEvent, type ReportEvent, type ReportEventDeps } from './report-event.ts';
export { fitPayload, makeSendMessage, type SendMessageDeps, type SendResult, sendLookupKeys } from './send-message.ts';
export { volumeOperationDocs } from './api/volume-docs.ts';
export { scheduledResult } from './api/volume-docs.ts';
export { volumeRouteDocs, volumeRoutes } from './api/volume-routes.ts';
export { eventAccepted } from './api/schemas.ts';
