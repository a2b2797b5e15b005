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
      z.catchall(z.object({ kind: z.enum(['sandbox', 'smtp', 'twilio', 'whatsapp-cloud']) }), z.unknown()),
      {
        description:
          'The provider without its credentials (`hasPassword` instead of `pass`, `hasAppSecret` instead of `appSecret`).',
      },
    ),
    credits: withMeta(z.optional(int()), { description: 'Channel credits left; absent = unmetered.' }),
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

export const messageStatus = withMeta(
  z.object({
    success: z.literal(true),
    messageId: z.string(),
    direction: z.enum(['outbound', 'inbound']),
    status: z.enum(['sent', 'delivered', 'read', 'failed', 'received']),
    channel: z.object({ id: z.string(), type: channelType }),
    to: z.union([z.string(), z.array(z.string())]),
    from: z.optional(z.string()),
    createdAt: z.string(),
    history: z.array(z.object({ status: z.string(), at: z.string() })),
    error: z.optional(z.string()),
  }),
  { id: 'MessageStatus' },
);
