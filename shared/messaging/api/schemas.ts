import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { int, isoTime } from '../../http/wire-schemas.ts';
import { pageOf } from '../../http/pagination.ts';
import { CHANNEL_TYPES } from '../channel.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

export const channelType = z.enum(CHANNEL_TYPES);

export const channel = withMeta(
  z.object({
    channelId: z.string(),
    type: channelType,
    name: z.string(),
    address: withMeta(z.string(), { description: 'Phone number, mailbox or SMS sender.' }),
    provider: withMeta(
      z.catchall(z.object({ kind: z.enum(['sandbox', 'smtp', 'twilio', 'whatsapp-cloud', 'ses']) }), z.unknown()),
      {
        description:
          'The provider without its credentials (`hasPassword` instead of `pass`, `hasAppSecret` instead of `appSecret`).',
      },
    ),
    credits: withMeta(z.optional(int()), { description: 'Channel credits left; absent = unmetered.' }),
    optOutKeywords: withMeta(z.optional(z.array(z.string())), {
      description:
        'SMS and WhatsApp: what a contact writes (the whole message, any case) to opt out: the channel’s list, or the defaults `STOP`, `PARAR`, `SAIR`, `CANCELAR`, `UNSUBSCRIBE`.',
    }),
    optInKeywords: withMeta(z.optional(z.array(z.string())), {
      description: 'SMS and WhatsApp: what a contact writes to opt back in (defaults `START`, `VOLTAR`).',
    }),
    pace: withMeta(z.object({ perSecond: z.number() }), {
      description:
        'How fast batch items and scheduled sends leave the channel (never more than `perSecond` in any second); ' +
        'defaults: whatsapp 80, sms 10, email 14. A single send is not paced.',
    }),
    inbound: withMeta(
      z.optional(
        z.union([
          z.object({ url: z.string(), verifyToken: z.optional(z.string()) }),
          z.object({ address: z.string() }),
        ]),
      ),
      {
        description:
          'Where the provider reports back: the URL to give Twilio or Meta (with the `verifyToken` for Meta), or the ' +
          'mailbox of an email channel. Absent for sandbox SMS and WhatsApp channels.',
      },
    ),
    createdAt: isoTime,
  }),
  { id: 'Channel' },
);

export const channelPage = pageOf(channel, 'ChannelPage', 'Channels, in id order');

export const outboxMessage = withMeta(
  z.object({
    messageId: z.string(),
    to: z.union([z.string(), z.array(z.string())]),
    payload: withMeta(z.record(z.string(), z.unknown()), { description: 'The send request as the provider got it.' }),
    sentAt: isoTime,
  }),
  { id: 'OutboxMessage' },
);

export const outboxPage = pageOf(outboxMessage, 'OutboxPage', 'Messages the sandbox sent, newest first');

export const eventAccepted = withMeta(z.object({ eventId: z.string() }), { id: 'EventAccepted' });

export const sendResult = withMeta(
  z.object({
    success: z.literal(true),
    messageId: z.string(),
    status: z.literal('sent'),
    channel: z.object({ id: z.string(), type: channelType }),
  }),
  { id: 'SendResult' },
);

/** One media item as a message shows it: a URL signed on this read, or why it could not be stored. */
export const messageMedia = withMeta(
  z.union([
    z.object({
      contentType: z.string(),
      size: withMeta(int(), { description: 'Bytes.' }),
      sha256: withMeta(z.string(), { description: 'Lowercase hex.' }),
      url: withMeta(z.string(), {
        description: 'A presigned GET of the stored copy, valid until `expiresAt` (7 days).',
      }),
      expiresAt: isoTime,
      fileName: z.optional(z.string()),
      providerMediaId: withMeta(z.optional(z.string()), { description: "WhatsApp's media id." }),
      providerUrl: withMeta(z.optional(z.string()), { description: "Twilio's `MediaUrl`." }),
    }),
    z.object({
      contentType: z.optional(z.string()),
      error: withMeta(z.string(), { description: 'Why this item could not be fetched or stored.' }),
      fileName: z.optional(z.string()),
      providerMediaId: z.optional(z.string()),
      providerUrl: z.optional(z.string()),
    }),
  ]),
  { id: 'StoredMessageMedia' },
);

/** A message as the message and conversation routes show it. */
const messageFields = {
  messageId: z.string(),
  conversationId: withMeta(z.optional(z.string()), {
    description: 'The conversation (`conv_…`); absent only on messages recorded before conversations existed.',
  }),
  direction: z.enum(['outbound', 'inbound']),
  status: withMeta(z.enum(['sent', 'delivered', 'read', 'failed', 'received', 'queued', 'scheduled', 'canceled']), {
    description:
      '`queued`: a batch item waiting for its turn at the channel pace; `scheduled`: waiting for `sendAt`; ' +
      '`canceled`: a scheduled message canceled before its time (never sent).',
  }),
  sendAt: withMeta(z.optional(z.string()), { description: 'A scheduled message: when it leaves (UTC).' }),
  channel: z.object({ id: z.string(), type: channelType }),
  to: z.union([z.string(), z.array(z.string())]),
  from: z.optional(z.string()),
  contact: withMeta(z.optional(z.string()), { description: 'The contact, as the channel writes addresses.' }),
  subject: withMeta(z.optional(z.string()), { description: 'Email: the subject.' }),
  text: withMeta(z.optional(z.string()), { description: 'What was said, up to 4,096 characters (`textTruncated`).' }),
  textTruncated: z.optional(z.boolean()),
  template: withMeta(z.optional(z.object({ name: z.string(), language: z.string() })), {
    description: 'WhatsApp: the template sent instead of a message.',
  }),
  media: withMeta(z.optional(z.array(messageMedia)), {
    description: 'Received media, each URL signed afresh by this read (valid 7 days).',
  }),
  createdAt: z.string(),
  history: z.array(z.object({ status: z.string(), at: z.string() })),
  error: z.optional(z.string()),
};

export const messageStatus = withMeta(z.object({ success: z.literal(true), ...messageFields }), {
  id: 'MessageStatus',
});

export const conversationMessage = withMeta(z.object(messageFields), { id: 'ConversationMessage' });

export const conversationMessagePage = pageOf(
  conversationMessage,
  'ConversationMessagePage',
  'Messages of the conversation, both directions, newest first',
);

export const conversation = withMeta(
  z.object({
    conversationId: withMeta(z.string(), {
      description: 'The conversation of this channel and contact (`conv_…`); every message event carries it.',
    }),
    contact: withMeta(z.string(), { description: 'As the channel writes addresses.' }),
    window: withMeta(z.optional(z.object({ open: z.boolean(), closesAt: z.nullable(isoTime) })), {
      description:
        'WhatsApp only: whether a free-form `message` may be sent now (24 h after the contact’s last message), and when that window closes (or closed; null when the contact never wrote). Templates may be sent at any time.',
    }),
    optedOut: withMeta(z.boolean(), { description: 'Sends to the contact answer 409 `RECIPIENT_OPTED_OUT`.' }),
  }),
  { id: 'Conversation' },
);

export const suppression = withMeta(
  z.object({
    contact: z.string(),
    reason: withMeta(z.enum(['keyword', 'bounce', 'admin']), {
      description:
        '`keyword`: the contact wrote an opt-out keyword (or unsubscribed by mail through its own `List-Unsubscribe` address); `bounce`: a mail this channel sent to it bounced for good.',
    }),
    at: isoTime,
    keyword: z.optional(z.string()),
  }),
  { id: 'Suppression' },
);

export const suppressionPage = pageOf(suppression, 'SuppressionPage', 'Suppressed contacts, in contact order');
