import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { isoTime } from '../../http/wire-schemas.ts';
import { pageOf } from '../../http/pagination.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

const filterScalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const webhookFilter = withMeta(
  z.object({
    all: z.array(
      withMeta(
        z.object({
          field: withMeta(z.string(), {
            description: 'A dotted path in the envelope (`channel.type`, `data.from`, `data.media.0.contentType`).',
          }),
          op: withMeta(z.enum(['eq', 'in', 'prefix', 'exists']), {
            description:
              '`eq` equal to `value`; `in` one of `value` (a list); `prefix` a string starting with `value`; ' +
              '`exists` present and not null (`value: false`: absent or null).',
          }),
          value: z.optional(z.union([filterScalar, z.array(filterScalar)])),
        }),
        { id: 'WebhookFilterCondition' },
      ),
    ),
  }),
  { id: 'WebhookFilter', description: 'Every condition must hold (at most 10).' },
);

export const integration = withMeta(
  z.object({
    integrationId: z.string(),
    product: z.enum(['webhook', 'custom', 'poller']),
    scope: z.enum(['general', 'channel']),
    channelId: z.nullable(z.string()),
    url: withMeta(z.nullable(z.string()), { description: 'The receiver (`http` destinations); null otherwise.' }),
    destination: withMeta(
      z.nullable(
        z.object({
          type: z.enum(['http', 'sqs', 'sns', 'eventbridge', 'kinesis', 's3']),
          roleArn: z.optional(z.string()),
          queueUrl: z.optional(z.string()),
          topicArn: z.optional(z.string()),
          eventBusArn: z.optional(z.string()),
          detailType: z.optional(z.string()),
          streamArn: z.optional(z.string()),
          bucket: z.optional(z.string()),
          prefix: z.optional(z.string()),
        }),
      ),
      {
        id: 'WebhookDestination',
        description:
          'Where deliveries go: `http` (`url`), or a queue, topic, bus, stream or bucket in your AWS account, reached ' +
          "by assuming `roleArn` with the project's `externalId`. Null for other products.",
      },
    ),
    eventTypes: withMeta(z.nullable(z.array(z.string())), {
      description: 'Subscribed event types; null = every type.',
    }),
    rateLimitPerSecond: withMeta(z.nullable(z.number().check(z.int())), {
      description: 'Most delivery attempts started in any one-second interval (1 to 10,000); null = no limit.',
    }),
    ordering: withMeta(z.nullable(z.enum(['none', 'conversation'])), {
      description:
        '`conversation`: deliveries of events sharing `data.conversationId` (events without one share their ' +
        'channel) start only after the previous one of that key succeeded or ended `failed`. Null for custom.',
    }),
    signature: withMeta(z.nullable(z.enum(['v1', 'v1a'])), {
      description: '`v1`: HMAC-SHA256 signatures; `v1a`: ed25519 (verify with `publicKey`). Null for custom.',
    }),
    publicKey: withMeta(z.nullable(z.string()), {
      description: '`v1a` webhooks: the `whpk_` ed25519 public key that verifies deliveries; null otherwise.',
    }),
    filter: withMeta(z.nullable(webhookFilter), {
      description: 'Only events matching every condition are delivered; null: every event of `eventTypes`.',
    }),
    enabled: z.boolean(),
    disabledReason: withMeta(z.nullable(z.string()), {
      description: '`manual`, `gone` (the receiver answered 410), `failing` (5 days of failures).',
    }),
    hasBearerToken: z.boolean(),
    createdAt: isoTime,
    updatedAt: isoTime,
  }),
  { id: 'Integration' },
);

export const integrationPage = pageOf(integration, 'IntegrationPage', 'Integrations without secrets, in id order');

export const createdIntegration = withMeta(
  z.extend(integration, {
    token: withMeta(z.optional(z.string()), {
      description: 'Custom integrations: the `sbc_` token; pollers: the `sbp_` token. Shown once.',
    }),
    signingSecret: withMeta(z.optional(z.string()), {
      description: '`v1` webhooks: the `whsec_` signing secret, shown once (`v1a` ones show `publicKey` instead).',
    }),
  }),
  { id: 'CreatedIntegration' },
);

export const updatedIntegration = withMeta(
  z.extend(integration, {
    signingSecret: withMeta(z.optional(z.string()), {
      description: 'Only after a switch to `signature: "v1"`: the new `whsec_` secret, shown once.',
    }),
  }),
  { id: 'UpdatedIntegration' },
);

export const signingSecret = withMeta(
  z.object({
    signingSecret: withMeta(z.optional(z.string()), {
      description: '`v1` webhooks: the new `whsec_` secret, shown once. The previous one keeps signing for 24 h.',
    }),
    publicKey: withMeta(z.optional(z.string()), {
      description: '`v1a` webhooks: the new `whpk_` public key. The previous key keeps signing for 24 h.',
    }),
  }),
  { id: 'SigningSecret' },
);
