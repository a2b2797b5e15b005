import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { eventAccepted } from './schemas.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import type { SandboxSimulation } from '#shared/messaging/inbound/sandbox.ts';
import * as z from '#shared/kernel/validation/zod.ts';

const text = (max: number) => z.string().check(z.maxLength(max));

const simulatedInboundBody = z.strictObject({
  from: z.string().check(z.trim(), z.minLength(1), z.maxLength(320)),
  text: text(64 * 1024),
  subject: z.optional(text(998)),
  html: z.optional(text(256 * 1024)),
});

const simulatedStatusBody = z.strictObject({
  messageId: z.string().check(z.minLength(1), z.maxLength(100)),
  status: z.enum(['delivered', 'read', 'failed']),
  error: z.optional(text(1000)),
});

/** Sandbox channels simulate a contact's reply and a provider's receipt. */
export const sandboxRoutes = {
  simulateInbound: route({
    method: 'POST',
    path: '/projects/{projectId}/channels/{channelId}/sandbox/inbound',
    body: simulatedInboundBody,
  }),
  simulateStatus: route({
    method: 'POST',
    path: '/projects/{projectId}/channels/{channelId}/sandbox/status',
    body: simulatedStatusBody,
  }),
};

/** What serves the sandbox routes: the simulation (409 for a channel that is not sandbox, 404 for a foreign message). */
export function sandboxHandlers(simulation: SandboxSimulation): RouteHandlers<typeof sandboxRoutes> {
  return {
    simulateInbound: async ({ params, body }) =>
      json(202, await simulation.inbound(params.projectId, params.channelId, body)),
    simulateStatus: async ({ params, body }) =>
      json(202, await simulation.status(params.projectId, params.channelId, body)),
  };
}

/** The OpenAPI documentation of {@link sandboxRoutes}, beside their declarations. */
export function sandboxRouteDocs(): RouteDocs<typeof sandboxRoutes> {
  return {
    simulateInbound: {
      operationId: 'simulateInboundMessage',
      summary: 'Simulate a message received on a sandbox channel',
      description:
        '`{ from, text }` for SMS and WhatsApp, `{ from, subject, text, html? }` for email: emits `message.received` ' +
        'as a real provider report would.',
      tags: ['Channels'],
      responses: { 202: { description: 'The event id.', body: eventAccepted } },
      errors: { 409: ['CONFLICT'] },
    },
    simulateStatus: {
      operationId: 'simulateDeliveryStatus',
      summary: 'Simulate a delivery receipt on a sandbox channel',
      description:
        "A status for one of the channel's sent messages, under the same rules as a provider's: forward only " +
        '(sent < delivered < read; read and failed final), once each. `eventId` is absent when nothing changed.',
      tags: ['Channels'],
      responses: {
        202: {
          description: 'Accepted; `eventId` of the event it emitted, absent when the status did not move.',
          body: z.object({ eventId: z.optional(z.string()) }),
          example: { eventId: EXAMPLE_EVENT_ID },
        },
      },
      errors: { 409: ['CONFLICT'] },
    },
  };
}

/** The event id every example of the API reference shows (the document's example ids). */
const EXAMPLE_EVENT_ID = 'evt_0mkfj2k9sa1b2c3d4e5f6g7';
