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
