import { withMeta } from '../kernel/validation/meta.ts';
import * as z from '../kernel/validation/zod.ts';
import type { EventEnvelope } from './envelope.ts';
import { NOTICE_EVENT_TYPES, type WebhookEventType } from './event-types.ts';

/**
 * The schema of every webhook event (docs/reference/events.md): the envelope and each type's `data`. The OpenAPI
 * document's `webhooks` section (shared/openapi/webhooks.ts) and the console's event catalog are generated from
 * here, and producers check what they publish against it (`checkEventData`).
 *
 * Adding an event type: one entry in {@link EVENT_CATALOG} (the compiler asks for it once the type is in
 * `WEBHOOK_EVENT_TYPES`).
 */

const isoTime = withMeta(z.iso.datetime({ offset: true }), { description: 'ISO 8601.' });

const eventChannel = withMeta(z.object({ id: z.string(), type: z.string(), address: z.string() }), {
  id: 'EventChannel',
  description: 'The channel the event happened on.',
});

/** Every event's envelope; `data` depends on `type`. */
export const eventEnvelopeFields = {
  id: withMeta(z.string(), { description: '`evt_…`; also the `webhook-id` header, the same on every retry.' }),
  timestamp: withMeta(isoTime, { description: 'When the event was accepted (ISO 8601): the event time.' }),
  projectId: z.string(),
  companyId: z.number(),
  channel: withMeta(z.nullable(eventChannel), {
    description:
      'Null for a `webhook.test` sent to a general webhook and for the notices (`webhook.failing`, `.disabled`).',
  }),
};

const conversationId = withMeta(z.string(), {
  description:
    'The conversation (`conv_…`): the same for every message event of a channel and contact; for email, the thread ' +
    'found by `In-Reply-To` / `References`, else the contact.',
});

const outboundData = z.object({
  messageId: z.string(),
  conversationId,
  integrationId: withMeta(z.string(), { description: 'The custom integration that sent the message.' }),
  status: z.enum(['sent', 'failed']),
  to: z.unknown(),
  provider: z.string(),
  providerMessageIds: z.optional(z.array(z.string())),
  error: withMeta(z.optional(z.union([z.string(), z.object({ code: z.string(), message: z.string() })])), {
    description:
      "Why it failed: the provider's words; for a batch item or scheduled send refused when it was to leave, " +
      '`{ code, message }` with the code a send would have answered (`RECIPIENT_OPTED_OUT`, `WINDOW_CLOSED`, ' +
      '`PROVIDER_ERROR` for no credits...).',
  }),
  payload: withMeta(z.record(z.string(), z.unknown()), { description: 'What was sent (truncated when large).' }),
  payloadTruncated: z.optional(z.boolean()),
  sentAt: isoTime,
});

const providerStatusData = z.object({
  messageId: z.string(),
  conversationId: withMeta(z.optional(z.string()), {
    description: 'The conversation of the message (absent only for messages sent before conversations existed).',
  }),
  providerMessageId: z.string(),
  status: z.enum(['delivered', 'read', 'failed']),
  at: isoTime,
  error: z.optional(z.string()),
});

const authenticationResult = z.enum(['pass', 'fail', 'none', 'unknown']);

const mailAuthentication = withMeta(
  z.object({ spf: authenticationResult, dkim: authenticationResult, dmarc: authenticationResult }),
  {
    id: 'MailAuthentication',
    description:
      'Email only, on every email `message.received`: what the receiving side checked of the sender. SES verdicts ' +
      '`PASS` → `pass`, `FAIL` → `fail`, `GRAY` (no SPF record, no DKIM signature, no DMARC policy) → `none`; ' +
      'not checked or not checkable (`PROCESSING_FAILED`, the local SMTP listener, the sandbox) → `unknown`. Mail ' +
      'SES judged spam or infected is dropped and never becomes an event.',
  },
);

const mediaItem = withMeta(
  z.union([
    z.object({
      contentType: z.string(),
      size: withMeta(z.number(), { description: 'Bytes.' }),
      sha256: withMeta(z.string(), { description: 'Lowercase hex.' }),
      url: withMeta(z.string(), {
        description:
          'A presigned GET of the stored copy, valid 7 days (`expiresAt`); `GET /api/integration/messages/{id}` signs a fresh one.',
      }),
      expiresAt: isoTime,
      fileName: z.optional(z.string()),
      providerMediaId: withMeta(z.optional(z.string()), { description: "WhatsApp's media id." }),
      providerUrl: withMeta(z.optional(z.string()), { description: "Twilio's `MediaUrl`." }),
    }),
    z.object({
      contentType: z.optional(z.string()),
      error: withMeta(z.string(), {
        description:
          'Why this item could not be fetched or stored (the provider refused, over 16 MB, a type not accepted); the message is delivered all the same.',
      }),
      fileName: z.optional(z.string()),
      providerMediaId: z.optional(z.string()),
      providerUrl: z.optional(z.string()),
    }),
  ]),
  { id: 'MessageMedia', description: 'A media item a contact sent: stored and offered as a URL, or why not.' },
);

const inboundData = z.object({
  messageId: z.string(),
  conversationId,
  direction: z.literal('inbound'),
  provider: z.string(),
  providerMessageId: z.string(),
  from: z.string(),
  to: z.string(),
  text: z.string(),
  contact: z.optional(z.object({ name: z.string() })),
  media: withMeta(z.optional(z.array(mediaItem)), {
    description:
      'WhatsApp images, documents, audio, video and stickers, Twilio MMS, mail attachments: at most 10, each at most 16 MB.',
  }),
  receivedAt: isoTime,
  subject: z.optional(z.string()),
  html: z.optional(z.string()),
  cc: z.optional(z.array(z.string())),
  inReplyTo: z.optional(z.string()),
  references: z.optional(z.array(z.string())),
  attachments: z.optional(z.array(z.object({ fileName: z.string(), contentType: z.string(), bytes: z.number() }))),
  authentication: z.optional(mailAuthentication),
  truncated: z.optional(
    withMeta(z.literal(true), {
      description:
        'Present when a part of the received message was over its ceiling and was cut: for email, `text` over ' +
        '1,000,000 characters, `html` over 5,000,000, `subject` over 2,000, or more than 100 `cc`, `references` or ' +
        '`attachments`. What is there is the start of the part.',
    }),
  ),
});

const testData = z.object({ integrationId: z.string(), message: z.string() });

const contactData = z.object({
  contact: withMeta(z.string(), {
    description: 'As the channel writes addresses (WhatsApp digits, SMS E.164, email).',
  }),
  conversationId: z.string(),
  reason: withMeta(z.enum(['keyword', 'bounce', 'complaint', 'admin']), {
    description:
      '`keyword`: the contact wrote one of the channel’s keywords, or unsubscribed by mail (to its own `List-Unsubscribe` address, or as a sender the receiving side verified); `bounce`: a mail this channel sent to it bounced for good; `complaint`: SES reported the contact marked a mail of this channel as spam; `admin`: the suppression was removed through the management API.',
  }),
  keyword: z.optional(z.string()),
});

const failingData = z.object({
  integrationId: withMeta(z.string(), { description: 'The webhook that is failing.' }),
  consecutiveFailures: withMeta(z.number().check(z.int(), z.gte(1)), {
    description: 'Delivery attempts to it that failed in a row when the notice was sent (`WEBHOOK_FAILING_AFTER`).',
  }),
  since: withMeta(isoTime, { description: 'When the first failure of this streak happened.' }),
});

const disabledData = z.object({
  integrationId: withMeta(z.string(), { description: 'The webhook that was disabled.' }),
  reason: withMeta(z.enum(['gone', 'failing']), {
    description: '`gone`: its receiver answered 410; `failing`: every attempt failed for 5 days.',
  }),
});

export interface EventCatalogEntry {
  description: string;
  data: z.ZodMiniType;
  /** A `data` as a receiver sees it (checked against `data` by a test). */
  example: Record<string, unknown>;
}

const at = '2026-01-15T12:00:00.000Z';

export const EVENT_CATALOG: Record<WebhookEventType, EventCatalogEntry> = {
  'message.received': {
    description: 'A contact wrote to one of the project’s channels.',
    data: inboundData,
    example: {
      messageId: 'msg_01hq3x9k2m7c4v8b6n5p',
      conversationId: 'conv_4k2m7c4v8b6n5p01hq3x',
      direction: 'inbound',
      provider: 'twilio',
      providerMessageId: 'SM0123456789abcdef0123456789abcdef',
      from: '+5511988887777',
      to: '+5511999990000',
      text: 'Hi, is my order on its way?',
      receivedAt: at,
    },
  },
  'message.sent': {
    description: 'A message sent through a custom integration left for the provider.',
    data: outboundData,
    example: {
      messageId: 'msg_01hq3x9k2m7c4v8b6n5q',
      conversationId: 'conv_4k2m7c4v8b6n5p01hq3x',
      integrationId: 'int_01hq3x9k2m7c4v8b6n5r',
      status: 'sent',
      to: '+5511988887777',
      provider: 'twilio',
      providerMessageIds: ['SM0123456789abcdef0123456789abcdee'],
      payload: { to: '+5511988887777', text: 'Your order shipped.' },
      sentAt: at,
    },
  },
  'message.delivered': {
    description: 'The provider reported a sent message delivered.',
    data: providerStatusData,
    example: {
      messageId: 'msg_01hq3x9k2m7c4v8b6n5q',
      conversationId: 'conv_4k2m7c4v8b6n5p01hq3x',
      providerMessageId: 'SM0123456789abcdef0123456789abcdee',
      status: 'delivered',
      at,
    },
  },
  'message.read': {
    description: 'The provider reported a sent message read.',
    data: providerStatusData,
    example: {
      messageId: 'msg_01hq3x9k2m7c4v8b6n5q',
      conversationId: 'conv_4k2m7c4v8b6n5p01hq3x',
      providerMessageId: 'SM0123456789abcdef0123456789abcdee',
      status: 'read',
      at,
    },
  },
  'message.failed': {
    description: 'A send failed, or the provider reported a sent message failed.',
    data: z.union([outboundData, providerStatusData]),
    example: {
      messageId: 'msg_01hq3x9k2m7c4v8b6n5q',
      conversationId: 'conv_4k2m7c4v8b6n5p01hq3x',
      providerMessageId: 'SM0123456789abcdef0123456789abcdee',
      status: 'failed',
      at,
      error: 'undelivered: the handset is unreachable',
    },
  },
  'contact.opted_out': {
    description:
      'A contact opted out of a channel (an opt-out keyword, its own List-Unsubscribe address, a hard bounce of a mail this channel sent it): sends to it answer 409 `RECIPIENT_OPTED_OUT` until it opts back in.',
    data: contactData,
    example: {
      contact: '+5511988887777',
      conversationId: 'conv_4k2m7c4v8b6n5p01hq3x',
      reason: 'keyword',
      keyword: 'STOP',
    },
  },
  'contact.opted_in': {
    description:
      'A contact opted back in (an opt-in keyword), or its suppression was removed through the management API (`reason: "admin"`).',
    data: contactData,
    example: {
      contact: '+5511988887777',
      conversationId: 'conv_4k2m7c4v8b6n5p01hq3x',
      reason: 'keyword',
      keyword: 'START',
    },
  },
  'webhook.test': {
    description: 'Sent by `POST …/integrations/{i}/test` to one webhook.',
    data: testData,
    example: { integrationId: 'int_01hq3x9k2m7c4v8b6n5r', message: 'This is a test event sent from Switchboard.' },
  },
  'webhook.failing': {
    description:
      'Another webhook of the project has failed `WEBHOOK_FAILING_AFTER` (20) delivery attempts in a row: once per ' +
      'failing streak (a success ends it). No channel; general webhooks receive it. The project’s `contactEmail` ' +
      'gets an email too.',
    data: failingData,
    example: { integrationId: 'int_01hq3x9k2m7c4v8b6n5r', consecutiveFailures: 20, since: at },
  },
  'webhook.disabled': {
    description:
      'Another webhook of the project was disabled by the service: its receiver answered 410, or every attempt ' +
      'failed for 5 days. No channel; general webhooks receive it. The project’s `contactEmail` gets an email too.',
    data: disabledData,
    example: { integrationId: 'int_01hq3x9k2m7c4v8b6n5r', reason: 'gone' },
  },
};

/** The envelope of one event type, `data` included: what a receiver of that type is POSTed. */
export function envelopeSchemaOf(type: WebhookEventType): z.ZodMiniObject {
  return z.object({ ...eventEnvelopeFields, type: z.literal(type), data: EVENT_CATALOG[type].data });
}

/** An example envelope of one event type. */
export function exampleEnvelopeOf(type: WebhookEventType): EventEnvelope {
  return {
    id: 'evt_0mkfj2k9sa1b2c3d4e5f6g7',
    type,
    timestamp: at,
    projectId: 'prj_01hq3x9k2m7c4v8b6n5s',
    companyId: 1042,
    channel: (NOTICE_EVENT_TYPES as readonly string[]).includes(type)
      ? null
      : { id: 'ch_01hq3x9k2m7c4v8b6n5t', type: 'sms', address: '+5511999990000' },
    data: EVENT_CATALOG[type].example,
  };
}

/** The problems of a `data` for its event type (empty when it matches the catalog). */
export function checkEventData(type: WebhookEventType, data: unknown): string[] {
  const result = z.safeParse(EVENT_CATALOG[type].data, data);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`);
}
