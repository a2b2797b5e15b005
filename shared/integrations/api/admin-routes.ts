import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json, noContent } from '#shared/http/types.ts';
import { integrationView } from '#shared/integrations/integration.ts';
import { WEBHOOK_EVENT_TYPES } from '#shared/events/index.ts';
import { MAX_WEBHOOK_RATE_PER_SECOND, SIGNATURE_SCHEMES, WEBHOOK_ORDERINGS } from '../integration.ts';
import {
  FILTER_OPS,
  filterProblems,
  MAX_FIELD_LENGTH,
  MAX_FILTER_CONDITIONS,
  MAX_FILTER_STRING_LENGTH,
  MAX_IN_VALUES,
  type WebhookFilter,
} from '../webhook-filter.ts';
import type { IntegrationUseCases } from '#shared/integrations/manage-integrations.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import { pageQuery } from '#shared/http/pagination.ts';

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

const eventTypes = z.array(z.enum(WEBHOOK_EVENT_TYPES)).check(
  z.minLength(1),
  z.maxLength(WEBHOOK_EVENT_TYPES.length),
  z.refine((types) => new Set(types).size === types.length, 'Event types must not repeat'),
);

/** Contract section 11: a whole number of attempts per second; null (or absent) is no limit. */
const rateLimitPerSecond = z.nullable(
  z.number().check(z.int('Must be a whole number'), z.gte(1), z.lte(MAX_WEBHOOK_RATE_PER_SECOND)),
);

const channelId = z.string().check(z.minLength(1), z.maxLength(100));

const ordering = z.enum(WEBHOOK_ORDERINGS as ['none', 'conversation']);
const signature = z.enum(SIGNATURE_SCHEMES as ['v1', 'v1a']);

const filterScalar = z.union([
  z.string().check(z.maxLength(MAX_FILTER_STRING_LENGTH)),
  z.number(),
  z.boolean(),
  z.null(),
]);

/**
 * A webhook's `filter` (docs/reference/webhooks.md). The shape is checked here (and documented from here); what depends on `op` (which values it
 * takes, which fields exist) by `filterProblems`, the same rules the console applies when it tries a filter.
 */
const filter = z
  .strictObject({
    all: z
      .array(
        z.strictObject({
          field: z.string().check(z.minLength(1), z.maxLength(MAX_FIELD_LENGTH)),
          op: z.enum(FILTER_OPS),
          value: z.optional(z.union([filterScalar, z.array(filterScalar).check(z.maxLength(MAX_IN_VALUES))])),
        }),
      )
      .check(z.minLength(1), z.maxLength(MAX_FILTER_CONDITIONS)),
  })
  .check(
    // Run even when the shape is wrong (`when`), so every problem of every condition is reported at once; a path
    // the shape already reported is not reported twice.
    z.superRefine(
      (value, ctx) => {
        const reported = new Set(
          ((ctx as unknown as { issues?: { path?: PropertyKey[] }[] }).issues ?? []).map((i) =>
            (i.path ?? []).join('.'),
          ),
        );
        for (const problem of filterProblems(value)) {
          if (reported.has(problem.path.join('.')) || problem.message === 'Unknown field') continue;
          ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message, input: value });
        }
      },
      { when: () => true },
    ),
  );
const nullableFilter = z.nullable(filter) as z.ZodMiniType<WebhookFilter | null>;

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
      ordering: z.optional(ordering),
      signature: z.optional(signature),
      filter: z.optional(nullableFilter),
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
  ordering: z.optional(ordering),
  signature: z.optional(signature),
  filter: z.optional(nullableFilter),
  enabled: z.optional(z.boolean()),
});

/**
 * Integrations of both products: create (secret shown once), list, get, patch, delete, rotate-token (custom),
 * rotate-secret (webhook). The webhook `/test` and `/deliveries` routes live with the webhooks area.
 */
export const integrationRoutes = {
  createIntegration: route({ method: 'POST', path: '/projects/{projectId}/integrations', body: createIntegrationBody }),
  listIntegrations: route({ method: 'GET', path: '/projects/{projectId}/integrations', query: pageQuery }),
  getIntegration: route({ method: 'GET', path: '/projects/{projectId}/integrations/{integrationId}' }),
  patchIntegration: route({
    method: 'PATCH',
    path: '/projects/{projectId}/integrations/{integrationId}',
    body: patchIntegrationBody,
  }),
  deleteIntegration: route({ method: 'DELETE', path: '/projects/{projectId}/integrations/{integrationId}' }),
  rotateToken: route({ method: 'POST', path: '/projects/{projectId}/integrations/{integrationId}/rotate-token' }),
  rotateSecret: route({ method: 'POST', path: '/projects/{projectId}/integrations/{integrationId}/rotate-secret' }),
};

/** What serves the integration routes. */
export function integrationHandlers(integrations: IntegrationUseCases): RouteHandlers<typeof integrationRoutes> {
  return {
    createIntegration: async ({ params, body }) => {
      const created = await integrations.create(params.projectId, body);
      const secret =
        created.token !== undefined
          ? { token: created.token }
          : created.signingSecret !== undefined
            ? { signingSecret: created.signingSecret }
            : {};
      return json(201, { ...integrationView(created.integration), ...secret }, NO_STORE);
    },
    listIntegrations: async ({ params, query }) => {
      const page = await integrations.list(params.projectId, query);
      return json(200, { ...page, items: page.items.map(integrationView) });
    },
    getIntegration: async ({ params }) =>
      json(200, integrationView(await integrations.get(params.projectId, params.integrationId))),
    patchIntegration: async ({ params, body }) => {
      const patched = await integrations.patch(params.projectId, params.integrationId, body);
      const secret = patched.signingSecret === undefined ? {} : { signingSecret: patched.signingSecret };
      return json(200, { ...integrationView(patched.integration), ...secret }, secret.signingSecret ? NO_STORE : {});
    },
    deleteIntegration: async ({ params }) => {
      await integrations.remove(params.projectId, params.integrationId);
      return noContent();
    },
    rotateToken: async ({ params }) =>
      json(200, { token: await integrations.rotateToken(params.projectId, params.integrationId) }, NO_STORE),
    rotateSecret: async ({ params }) =>
      json(200, await integrations.rotateSecret(params.projectId, params.integrationId), NO_STORE),
  };
}
