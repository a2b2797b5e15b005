import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json, noContent } from '#shared/http/types.ts';
import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { shownOnceToken } from '#shared/projects/index.ts';
import { WEBHOOK_EVENT_TYPES } from '#shared/events/index.ts';
import { integrationView, MAX_WEBHOOK_RATE_PER_SECOND, SIGNATURE_SCHEMES, WEBHOOK_ORDERINGS } from '../integration.ts';
import {
  FILTER_OPS,
  filterProblems,
  MAX_FIELD_LENGTH,
  MAX_FILTER_CONDITIONS,
  MAX_FILTER_STRING_LENGTH,
  MAX_IN_VALUES,
  type WebhookFilter,
} from '../../contract/webhook-filter.ts';
import type { IntegrationUseCases } from '../manage-integrations.ts';
import { createdIntegration, integration, integrationPage, signingSecret, updatedIntegration } from './schemas.ts';
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

/** A whole number of attempts per second; null (or absent) is no limit (docs/reference/webhooks.md). */
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

const roleArn = z.string().check(z.minLength(1), z.maxLength(2048));
const arnField = z.string().check(z.minLength(1), z.maxLength(2048));

/**
 * Where a webhook delivers. The resource fields' syntax (each service's ARN, SQS's queue URL, S3's bucket rules) is
 * checked by the use case, so the console and the API report the same problems.
 */
const destination = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('http') }),
  z.strictObject({ type: z.literal('sqs'), roleArn, queueUrl: arnField }),
  z.strictObject({ type: z.literal('sns'), roleArn, topicArn: arnField }),
  z.strictObject({
    type: z.literal('eventbridge'),
    roleArn,
    eventBusArn: arnField,
    detailType: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  }),
  z.strictObject({ type: z.literal('kinesis'), roleArn, streamArn: arnField }),
  z.strictObject({
    type: z.literal('s3'),
    roleArn,
    bucket: z.string().check(z.minLength(1), z.maxLength(63)),
    prefix: z.optional(
      z.string().check(
        z.maxLength(512),
        z.refine((p) => ![...p].some((c) => c < ' ' || c === '\u007f'), 'No control characters'),
      ),
    ),
  }),
]);

const createIntegrationBody = z
  .discriminatedUnion('product', [
    z.strictObject({
      product: z.literal('webhook'),
      scope: z.enum(['general', 'channel']),
      channelId: z.optional(channelId),
      url: z.optional(webhookUrl),
      destination: z.optional(destination),
      bearerToken: z.optional(bearerToken),
      eventTypes: z.optional(eventTypes),
      rateLimitPerSecond: z.optional(rateLimitPerSecond),
      ordering: z.optional(ordering),
      signature: z.optional(signature),
      filter: z.optional(nullableFilter),
    }),
    z.strictObject({ product: z.literal('custom'), channelId }),
    z.strictObject({
      product: z.literal('poller'),
      eventTypes: z.optional(eventTypes),
      filter: z.optional(nullableFilter),
    }),
  ])
  .check(
    z.superRefine((body, ctx) => {
      if (body.product !== 'webhook') return;
      const type = body.destination?.type ?? 'http';
      if (type === 'http' && body.url === undefined) {
        ctx.addIssue({ code: 'custom', path: ['url'], message: 'Required with destination type "http"' });
      }
      if (type !== 'http' && body.url !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['url'], message: `Not allowed with destination type "${type}"` });
      }
      if (type !== 'http' && body.bearerToken !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['bearerToken'], message: 'Only http destinations send a bearer token' });
      }
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
  destination: z.optional(destination),
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

/** The integration routes in the API reference (the OpenAPI document): what the declarations above cannot tell. */
export function integrationRouteDocs(): RouteDocs<typeof integrationRoutes> {
  return {
    createIntegration: {
      operationId: 'createIntegration',
      summary: 'Create an integration (webhook, custom or poller)',
      description:
        "A webhook pushes the project's events to `url` (scope `general`: every channel; `channel`: one channel), or " +
        'to a `destination` in your AWS account (an SQS queue, SNS topic, EventBridge bus, Kinesis stream or S3 ' +
        "bucket) through `roleArn`, assumed with the project's `externalId` when delivering: a malformed ARN, queue " +
        'URL or bucket name is 400, a role that cannot be assumed shows as failed attempts naming the error. ' +
        'A custom integration gets a `sbc_` token bound to one channel for `POST /api/integration/generic`; a ' +
        '`poller` an `sbp_` token for `GET /api/integration/events`. ' +
        "The answer carries a `v1` webhook's `signingSecret` or the custom `token`, shown once; a `v1a` webhook's " +
        "`publicKey` is on the integration itself. `ordering` (`conversation`: one conversation's events in order), " +
        '`signature` (`v1` or `v1a`) and `filter` (conditions an event must meet) are optional.',
      tags: ['Integrations'],
      responses: { 201: { description: 'The integration with its secret, shown once.', body: createdIntegration } },
      errors: { 404: ['CHANNEL_NOT_FOUND'], 409: ['CONFLICT'] },
    },
    listIntegrations: {
      operationId: 'listIntegrations',
      summary: 'List integrations',
      description: "The project's webhooks and custom integrations, a page at a time, without secrets.",
      tags: ['Integrations'],
      responses: { 200: { description: 'A page of integrations, without secrets.', body: integrationPage } },
    },
    getIntegration: {
      operationId: 'getIntegration',
      summary: 'Get an integration',
      description: 'The integration by id, without secrets.',
      tags: ['Integrations'],
      responses: { 200: { description: 'The integration, without secrets.', body: integration } },
    },
    patchIntegration: {
      operationId: 'updateIntegration',
      summary: 'Change a webhook (url, destination, bearer token, event types, ordering, signature, filter, enabled)',
      description:
        'Pollers: `eventTypes`, `filter`. Webhooks: `url`, `destination` (a move to `http` needs a `url`), `bearerToken`, `eventTypes`, `rateLimitPerSecond`, `ordering`, `signature`, `filter`, ' +
        '`enabled`; a field not sent is unchanged, `null` clears `bearerToken`, `eventTypes`, `rateLimitPerSecond` and ' +
        '`filter`. A switch of `signature` keeps the previous scheme signing for 24 h beside the new one; a switch to ' +
        '`v1` answers with a new `signingSecret`, shown once.',
      tags: ['Integrations'],
      responses: { 200: { description: 'The integration after the change.', body: updatedIntegration } },
      errors: { 409: ['CONFLICT'] },
    },
    deleteIntegration: {
      operationId: 'deleteIntegration',
      summary: 'Delete an integration',
      description: "A custom integration's token stops working at once.",
      tags: ['Integrations'],
      responses: { 204: { description: 'Deleted.' } },
    },
    rotateToken: {
      operationId: 'rotateIntegrationToken',
      summary: "Rotate a custom integration's or a poller's token (shown once)",
      description: 'The previous token answers 401 `ERR_NO_PERMISSION` at once.',
      tags: ['Integrations'],
      responses: { 200: { description: 'The new token, shown once.', body: shownOnceToken } },
      // A webhook has no token: 400.
      errors: { 400: ['VALIDATION_ERROR'], 409: ['CONFLICT'] },
    },
    rotateSecret: {
      operationId: 'rotateWebhookSecret',
      summary: "Rotate a webhook's signing secret or key",
      description:
        'For 24 h deliveries carry signatures under both the new and the previous secret (`v1`) or key (`v1a`), so ' +
        'receivers can switch without losing events. `v1`: the new `signingSecret`, shown once; `v1a`: the new ' +
        '`publicKey`.',
      tags: ['Integrations'],
      responses: { 200: { description: 'The new secret (shown once) or public key.', body: signingSecret } },
      // A custom integration has no signing secret: 400.
      errors: { 400: ['VALIDATION_ERROR'], 409: ['CONFLICT'] },
    },
  };
}

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
