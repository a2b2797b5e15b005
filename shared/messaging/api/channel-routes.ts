import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { channel, channelPage, outboxPage } from './schemas.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json, noContent } from '#shared/http/types.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { CHANNEL_TYPES, channelAddressProblem, inboundView, providerView, type Channel } from '../channel.ts';
import {
  DEFAULT_OPT_IN_KEYWORDS,
  DEFAULT_OPT_OUT_KEYWORDS,
  KEYWORD_CHANNEL_TYPES,
  keywordListProblem,
  keywordsOf,
} from '../conversation.ts';
import type { ChannelUseCases } from '../manage-channels.ts';
import { paceOf, paceSchema } from '../volume/pace.ts';
import { withMeta } from '#shared/kernel/validation/meta.ts';
import * as z from '#shared/kernel/validation/zod.ts';

const httpUrl = z.url({ protocol: /^https?$/, error: 'Must be an absolute http(s) URL' }).check(z.maxLength(2048));

const providerBody = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('sandbox') }),
  z.strictObject({
    kind: z.literal('smtp'),
    host: z.string().check(z.trim(), z.minLength(1), z.maxLength(253)),
    port: withMeta(z.number().check(z.int(), z.gte(1), z.lte(65535)), {
      description: 'A deployment takes the mail ports 25, 465, 587 and 2525 unless configured otherwise.',
    }),
    secure: withMeta(z.optional(z.boolean()), {
      description: 'Implicit TLS from the first byte (port 465). Without it the connection must upgrade with STARTTLS.',
    }),
    allowPlaintext: withMeta(z.optional(z.boolean()), {
      description:
        'Send without TLS when the server offers no STARTTLS (credentials and mail in clear). Default false: ' +
        'a server without TLS fails the send with 502.',
    }),
    user: z.optional(z.string().check(z.minLength(1), z.maxLength(320))),
    pass: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
  }),
  z.strictObject({
    kind: z.literal('twilio'),
    accountSid: z.string().check(z.regex(/^[A-Za-z0-9]{1,64}$/, 'Letters and digits')),
    authToken: z.string().check(z.minLength(1), z.maxLength(256)),
    baseUrl: z.optional(httpUrl),
  }),
  z.strictObject({
    kind: z.literal('whatsapp-cloud'),
    phoneNumberId: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'Letters, digits, - and _')),
    accessToken: z.string().check(z.minLength(1), z.maxLength(4096)),
    baseUrl: z.optional(httpUrl),
    appSecret: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  }),
  z.strictObject({
    kind: z.literal('ses'),
    region: z.optional(z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'An AWS region, e.g. us-east-1'))),
    configurationSet: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'Letters, digits, - and _'))),
    fromArn: z.optional(
      z.string().check(z.regex(/^arn:aws[a-z-]*:ses:[a-z0-9-]+:\d{12}:identity\/.{1,512}$/, 'An SES identity ARN')),
    ),
  }),
]);

/** A keyword list: 1 to 20 keywords of 1 to 30 characters, none twice (case aside). */
const keywordList = (what: string) =>
  withMeta(
    z
      .array(
        z
          .string()
          .check(
            z.trim(),
            z.minLength(1, 'A keyword must not be empty'),
            z.maxLength(30, 'At most 30 characters'),
            z.regex(/^\S(.*\S)?$/, 'No leading or trailing spaces'),
          ),
      )
      .check(
        z.minLength(1, 'At least one keyword (null restores the defaults)'),
        z.maxLength(20, 'At most 20 keywords'),
        z.superRefine((list, ctx) => {
          const problem = keywordListProblem(list);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      ),
    {
      description:
        `SMS and WhatsApp: what a contact writes, as the whole message in any case, to ${what}. Replaces the defaults ` +
        `(${what === 'opt out' ? DEFAULT_OPT_OUT_KEYWORDS.join(', ') : DEFAULT_OPT_IN_KEYWORDS.join(', ')}).`,
    },
  );

/** Both lists together: a keyword in both would be read as an opt-out. */
function keywordOverlap(
  body: { optOutKeywords?: string[] | null; optInKeywords?: string[] | null },
  ctx: { addIssue(issue: { code: 'custom'; path: string[]; message: string }): void },
) {
  const out = new Set((body.optOutKeywords ?? []).map((k) => k.toUpperCase()));
  const both = (body.optInKeywords ?? []).find((k) => out.has(k.toUpperCase()));
  if (both) ctx.addIssue({ code: 'custom', path: ['optInKeywords'], message: `"${both}" is also an opt-out keyword` });
}

const createChannelBody = z
  .strictObject({
    type: z.enum(CHANNEL_TYPES),
    name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
    address: z.string().check(z.trim(), z.minLength(1), z.maxLength(320)),
    provider: z.optional(providerBody),
    credits: z.optional(z.number().check(z.int(), z.gte(0), z.lte(1_000_000_000))),
    optOutKeywords: z.optional(keywordList('opt out')),
    optInKeywords: z.optional(keywordList('opt back in')),
    pace: z.optional(paceSchema),
  })
  .check(
    z.superRefine((body, ctx) => {
      const problem = channelAddressProblem(body.type, body.address);
      if (problem) ctx.addIssue({ code: 'custom', path: ['address'], message: problem });
      if (body.type === 'email' && (body.optOutKeywords || body.optInKeywords))
        ctx.addIssue({
          code: 'custom',
          path: [body.optOutKeywords ? 'optOutKeywords' : 'optInKeywords'],
          message: 'Email channels take no keywords (their contacts unsubscribe by mail, and bounces suppress)',
        });
      keywordOverlap(body, ctx);
    }),
  );

const updateChannelBody = z
  .strictObject({
    name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))),
    optOutKeywords: z.optional(z.nullable(keywordList('opt out'))),
    optInKeywords: z.optional(z.nullable(keywordList('opt back in'))),
    pace: z.optional(z.nullable(paceSchema)),
  })
  .check(z.superRefine((body, ctx) => keywordOverlap(body, ctx)));

const amountBody = z.strictObject({ amount: z.number().check(z.int(), z.gt(0), z.lte(1_000_000_000)) });

/** The channel as the management API shows it: credentials never leave; `inbound` says where providers report. */
export function channelView(channel: Channel, publicBaseUrl: string) {
  const inbound = inboundView(channel, publicBaseUrl);
  return {
    channelId: channel.channelId,
    type: channel.type,
    name: channel.name,
    address: channel.address,
    provider: providerView(channel.provider),
    ...(channel.credits === undefined ? {} : { credits: channel.credits }),
    ...(inbound ? { inbound } : {}),
    ...(KEYWORD_CHANNEL_TYPES.includes(channel.type)
      ? { optOutKeywords: [...keywordsOf(channel).optOut], optInKeywords: [...keywordsOf(channel).optIn] }
      : {}),
    pace: paceOf(channel),
    createdAt: channel.createdAt,
  };
}

/** Channels: create, list, change, delete, top up credits, and the sandbox outbox. */
export const channelRoutes = {
  createChannel: route({ method: 'POST', path: '/projects/{projectId}/channels', body: createChannelBody }),
  listChannels: route({ method: 'GET', path: '/projects/{projectId}/channels', query: pageQuery }),
  getChannel: route({ method: 'GET', path: '/projects/{projectId}/channels/{channelId}' }),
  updateChannel: route({
    method: 'PATCH',
    path: '/projects/{projectId}/channels/{channelId}',
    body: updateChannelBody,
  }),
  deleteChannel: route({ method: 'DELETE', path: '/projects/{projectId}/channels/{channelId}' }),
  addCredits: route({ method: 'POST', path: '/projects/{projectId}/channels/{channelId}/credits', body: amountBody }),
  outbox: route({ method: 'GET', path: '/projects/{projectId}/channels/{channelId}/outbox', query: pageQuery }),
};

/** What serves the channel routes; `publicBaseUrl` (PUBLIC_BASE_URL) is where the inbound URLs shown point. */
export function channelHandlers(channels: ChannelUseCases, publicBaseUrl: string): RouteHandlers<typeof channelRoutes> {
  const view = (channel: Channel) => channelView(channel, publicBaseUrl);
  return {
    createChannel: async ({ params, body }) => json(201, view(await channels.create(params.projectId, body))),
    listChannels: async ({ params, query }) => {
      const page = await channels.list(params.projectId, query);
      return json(200, { ...page, items: page.items.map(view) });
    },
    getChannel: async ({ params }) =>
      json(200, view(await channels.requireChannel(params.projectId, params.channelId))),
    updateChannel: async ({ params, body }) =>
      json(200, view(await channels.update(params.projectId, params.channelId, body))),
    deleteChannel: async ({ params }) => {
      await channels.remove(params.projectId, params.channelId);
      return noContent();
    },
    addCredits: async ({ params, body }) =>
      json(200, view(await channels.addCredits(params.projectId, params.channelId, body.amount))),
    outbox: async ({ params, query }) => json(200, await channels.outbox(params.projectId, params.channelId, query)),
  };
}

/** The OpenAPI documentation of {@link channelRoutes}, beside their declarations. */
export function channelRouteDocs(): RouteDocs<typeof channelRoutes> {
  return {
    createChannel: {
      operationId: 'createChannel',
      summary: 'Create a channel',
      description:
        'A WhatsApp number, an email mailbox or an SMS sender, with the provider that sends on it (sandbox by default).',
      tags: ['Channels'],
      responses: { 201: { description: 'The channel (credentials are never returned).', body: channel } },
    },
    listChannels: {
      operationId: 'listChannels',
      summary: 'List channels',
      description: "The project's channels, a page at a time; credentials are never returned.",
      tags: ['Channels'],
      responses: { 200: { description: 'A page of channels.', body: channelPage } },
    },
    getChannel: {
      operationId: 'getChannel',
      summary: 'Get a channel',
      description: 'The channel by id; credentials are never returned.',
      tags: ['Channels'],
      responses: { 200: { description: 'The channel.', body: channel } },
    },
    updateChannel: {
      operationId: 'updateChannel',
      summary: 'Rename a channel or change its opt-out keywords',
      description:
        'Changes `name`, `optOutKeywords` and `optInKeywords` (SMS and WhatsApp; `null` restores the defaults). A ' +
        'keyword in both lists, or keywords on an email channel, is 400.',
      tags: ['Channels'],
      responses: { 200: { description: 'The channel.', body: channel } },
    },
    deleteChannel: {
      operationId: 'deleteChannel',
      summary: 'Delete a channel',
      description: 'Custom tokens bound to it then answer 404 `CHANNEL_NOT_FOUND` on the send endpoint.',
      tags: ['Channels'],
      responses: { 204: { description: 'Deleted.' } },
    },
    addCredits: {
      operationId: 'addChannelCredits',
      summary: 'Add channel credits',
      description:
        'Adds `amount` send credits to the channel (a send costs one); an unmetered channel becomes metered.',
      tags: ['Channels'],
      responses: { 200: { description: 'The channel with its new balance.', body: channel } },
    },
    outbox: {
      operationId: 'listOutboxMessages',
      summary: 'Messages recorded by a sandbox channel',
      description:
        'Sandbox channels only (409 `CONFLICT` otherwise): what a real provider would have sent, newest first, a page at a time.',
      tags: ['Channels'],
      responses: { 200: { description: 'A page of messages, newest first.', body: outboxPage } },
      errors: { 409: ['CONFLICT'] },
    },
  };
}
