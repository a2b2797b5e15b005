import { envelopeSchemaOf, EVENT_CATALOG, exampleEnvelopeOf, WEBHOOK_EVENT_TYPES } from '../events/index.ts';
import type * as z from '../kernel/validation/zod.ts';

type Json = Record<string, unknown>;

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event type, the request a receiver gets (envelope with that
 * type's `data`, from shared/webhooks/event-catalog.ts) and the answers the delivery understands.
 */
export function webhooksSection(convert: (schema: z.ZodMiniType, io: 'input' | 'output') => Json): Json {
  const signatureHeaders = [
    { name: 'webhook-id', description: 'The event id (`evt_…`), the same on every retry.' },
    { name: 'webhook-timestamp', description: 'Unix seconds of this attempt.' },
    {
      name: 'webhook-signature',
      description:
        '`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, space-separated when two secrets are live (Standard Webhooks).',
    },
  ].map((h) => ({ in: 'header', required: true, schema: { type: 'string' }, ...h }));
  const examples: Record<string, string> = {
    'webhook-id': 'evt_0mkfj2k9sa1b2c3d4e5f6g7',
    'webhook-timestamp': '1795341600',
    'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  };
  for (const header of signatureHeaders) Object.assign(header, { example: examples[header.name] });
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${camel(type)}Event`,
          summary: type,
          description: EVENT_CATALOG[type].description,
          tags: ['Webhook events'],
          // A bearer token only when the webhook has one; the signature headers are what prove the sender.
          security: [{}, { webhookBearerToken: [] }],
          parameters: signatureHeaders,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: convert(envelopeSchemaOf(type), 'output'),
                example: exampleEnvelopeOf(type),
              },
            },
          },
          responses: {
            '2XX': { description: 'Received. Answer within 15 s.' },
            '410': { description: 'Gone: the webhook is disabled at once.' },
            '429': {
              description: 'Busy: retried no sooner than `Retry-After` (seconds or an HTTP date, at most 24 h).',
            },
            '503': { description: 'Unavailable: retried no sooner than `Retry-After`.' },
            default: { description: 'Retried on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h).' },
          },
        },
      },
    ]),
  );
}

/** `message.received` → `messageReceived`. */
function camel(type: string): string {
  return type.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase());
}
