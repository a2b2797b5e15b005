import { DynamoChannelStore } from '#shared/adapters/dynamodb/channel-store.ts';
import { DynamoIntegrationStore } from '#shared/adapters/dynamodb/integration-store.ts';
import { DynamoProjectStore } from '#shared/adapters/dynamodb/project-store.ts';
import type { DynamoTable } from '#shared/adapters/dynamodb/table.ts';
import { DynamoTokenStore } from '#shared/adapters/dynamodb/token-store.ts';
import type { Config } from '#shared/config/config.ts';
import type { SecretBox } from '#shared/integrations/secret-box.ts';
import { makeIntegrationUseCases } from '#shared/integrations/use-cases.ts';
import { route, type Route } from '#shared/http/router.ts';
import { json, noContent } from '#shared/http/types.ts';
import { EVENT_TYPES, integrationView } from '#shared/integrations/integration.ts';
import { MAX_WEBHOOK_RATE_PER_SECOND } from '#shared/webhooks/pacing.ts';
import type { IntegrationUseCases } from '#shared/integrations/use-cases.ts';
import * as z from '#shared/validation/zod.ts';

const NO_STORE = { 'cache-control': 'no-store' };

const webhookUrl = z.url({ protocol: /^https?$/, error: 'Must be an absolute http(s) URL' }).check(
  z.maxLength(2048),
  z.refine((u) => {
    // The refinement also runs when the format check above has failed: an unparsable URL is reported there.
    if (!URL.canParse(u)) return true;
    const parsed = new URL(u);
    return parsed.username === '' && parsed.password === '';
  }, 'Credentials in the URL are not allowed; use bearerToken'),
);

/** Sent verbatim in an HTTP header: printable ASCII only (no CR/LF). */
const bearerToken = z
  .string()
  .check(z.minLength(1), z.maxLength(4096), z.regex(/^[\x21-\x7e]+$/, 'Printable ASCII without spaces'));

const eventTypes = z.array(z.enum(EVENT_TYPES)).check(
  z.minLength(1),
  z.maxLength(EVENT_TYPES.length),
  z.refine((types) => new Set(types).size === types.length, 'Event types must not repeat'),
);

/** Contract section 11: a whole number of attempts per second; null (or absent) is no limit. */
const rateLimitPerSecond = z.nullable(
  z.number().check(z.int('Must be a whole number'), z.gte(1), z.lte(MAX_WEBHOOK_RATE_PER_SECOND)),
);

const channelId = z.string().check(z.minLength(1), z.maxLength(100));

const createIntegrationBody = z
  .discriminatedUnion('product', [
    z.strictObject({
      product: z.literal('webhook'),
      scope: z.enum(['general', 'channel']),
      channelId: z.optional(channelId),
      url: webhookUrl,
      bearerToken: z.optional(bearerToken),
      eventTypes: z.optional(eventTypes),
      rateLimitPerSecond: z.optional(rateLimitPerSecond),
    }),
    z.strictObject({ product: z.literal('custom'), channelId }),
  ])
  .check(
    z.superRefine((body, ctx) => {
      if (body.product !== 'webhook') return;
      if (body.scope === 'channel' && body.channelId === undefined) {
        ctx.addIssue({ code: 'custom', path: ['channelId'], message: 'A channel-scoped webhook needs channelId' });
      }
      if (body.scope === 'general' && body.channelId !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['channelId'],
          message: 'A general webhook receives every channel; remove channelId or use scope "channel"',
        });
      }
    }),
  );

const patchIntegrationBody = z.strictObject({
  url: z.optional(webhookUrl),
  bearerToken: z.optional(z.nullable(bearerToken)),
  eventTypes: z.optional(z.nullable(eventTypes)),
  rateLimitPerSecond: z.optional(rateLimitPerSecond),
  enabled: z.optional(z.boolean()),
});

/**
 * Integrations of both products: create (secret shown once), list, get, patch, delete, rotate-token (custom),
 * rotate-secret (webhook). The webhook `/test` and `/deliveries` routes live with the webhooks area.
 */
export function integrationRoutes(integrations: IntegrationUseCases): Route[] {
  return [
    route({
      method: 'POST',
      path: '/projects/{projectId}/integrations',
      body: createIntegrationBody,
      handle: async ({ params, body }) => {
        const created = await integrations.create(params.projectId!, body);
        const secret =
          created.token !== undefined ? { token: created.token } : { signingSecret: created.signingSecret };
        return json(201, { ...integrationView(created.integration), ...secret }, NO_STORE);
      },
    }),
    route({
      method: 'GET',
      path: '/projects/{projectId}/integrations',
      handle: async ({ params }) =>
        json(200, { items: (await integrations.list(params.projectId!)).map(integrationView) }),
    }),
    route({
      method: 'GET',
      path: '/projects/{projectId}/integrations/{integrationId}',
      handle: async ({ params }) =>
        json(200, integrationView(await integrations.get(params.projectId!, params.integrationId!))),
    }),
    route({
      method: 'PATCH',
      path: '/projects/{projectId}/integrations/{integrationId}',
      body: patchIntegrationBody,
      handle: async ({ params, body }) =>
        json(200, integrationView(await integrations.patch(params.projectId!, params.integrationId!, body))),
    }),
    route({
      method: 'DELETE',
      path: '/projects/{projectId}/integrations/{integrationId}',
      handle: async ({ params }) => {
        await integrations.remove(params.projectId!, params.integrationId!);
        return noContent();
      },
    }),
    route({
      method: 'POST',
      path: '/projects/{projectId}/integrations/{integrationId}/rotate-token',
      handle: async ({ params }) =>
        json(200, { token: await integrations.rotateToken(params.projectId!, params.integrationId!) }, NO_STORE),
    }),
    route({
      method: 'POST',
      path: '/projects/{projectId}/integrations/{integrationId}/rotate-secret',
      handle: async ({ params }) =>
        json(
          200,
          { signingSecret: await integrations.rotateSecret(params.projectId!, params.integrationId!) },
          NO_STORE,
        ),
    }),
  ];
}

/** The integration routes wired to DynamoDB (composition for the admin function). */
export function integrationRoutesFromConfig(cfg: Config, table: DynamoTable, secretBox: SecretBox): Route[] {
  return integrationRoutes(
    makeIntegrationUseCases({
      integrations: new DynamoIntegrationStore(table, secretBox),
      channels: new DynamoChannelStore(table, secretBox),
      projects: new DynamoProjectStore(table),
      tokens: new DynamoTokenStore(table),
      allowPrivateDestinations: cfg.webhookAllowPrivate,
    }),
  );
}
