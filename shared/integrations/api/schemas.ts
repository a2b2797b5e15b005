import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { isoTime } from '../../http/wire-schemas.ts';
import { pageOf } from '../../http/pagination.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

export const integration = withMeta(
  z.object({
    integrationId: z.string(),
    product: z.enum(['webhook', 'custom']),
    scope: z.enum(['general', 'channel']),
    channelId: z.nullable(z.string()),
    url: z.nullable(z.string()),
    eventTypes: withMeta(z.nullable(z.array(z.string())), {
      description: 'Subscribed event types; null = every type.',
    }),
    rateLimitPerSecond: withMeta(z.nullable(z.number().check(z.int())), {
      description: 'Most delivery attempts started in any one-second interval (1 to 10,000); null = no limit.',
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
    token: withMeta(z.optional(z.string()), { description: 'Custom integrations: the `sbc_` token, shown once.' }),
    signingSecret: withMeta(z.optional(z.string()), {
      description: 'Webhooks: the `whsec_` signing secret, shown once.',
    }),
  }),
  { id: 'CreatedIntegration' },
);

export const signingSecret = withMeta(
  z.object({
    signingSecret: withMeta(z.string(), {
      description: 'The new `whsec_` secret, shown once. The previous one keeps signing for 24 h.',
    }),
  }),
  { id: 'SigningSecret' },
);
