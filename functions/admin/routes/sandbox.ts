import { DynamoMessageStatusStore } from '#shared/adapters/dynamodb/message-status-store.ts';
import type { DynamoTable } from '#shared/adapters/dynamodb/table.ts';
import { HttpError } from '#shared/http/errors.ts';
import { route, type Route } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import type { Logger } from '#shared/logging/logger.ts';
import type { ChannelUseCases } from '#shared/messaging/channel-use-cases.ts';
import { makeApplyReports } from '#shared/messaging/inbound/process-inbound.ts';
import {
  makeSandboxSimulation,
  NotSandboxChannelError,
  SandboxBodyError,
  SandboxMessageNotFoundError,
  type SandboxSimulation,
} from '#shared/messaging/inbound/sandbox.ts';
import type { EventPublisher } from '#shared/webhooks/events.ts';
import * as z from '#shared/validation/zod.ts';

const text = (max: number) => z.string().check(z.maxLength(max));

export const simulatedInboundBody = z.strictObject({
  from: z.string().check(z.trim(), z.minLength(1), z.maxLength(320)),
  text: text(64 * 1024),
  subject: z.optional(text(998)),
  html: z.optional(text(256 * 1024)),
});

export const simulatedStatusBody = z.strictObject({
  messageId: z.string().check(z.minLength(1), z.maxLength(100)),
  status: z.enum(['delivered', 'read', 'failed']),
  error: z.optional(text(1000)),
});

/** The simulation's errors as the contract's answers. */
function asHttpError(error: unknown): unknown {
  if (error instanceof NotSandboxChannelError) return new HttpError(409, error.code, error.message);
  if (error instanceof SandboxMessageNotFoundError) return new HttpError(404, error.code, error.message);
  if (error instanceof SandboxBodyError)
    return new HttpError(400, error.code, error.message, { details: error.details });
  return error;
}

/** Sandbox channels simulate a contact's reply and a provider's receipt (contract §10). */
export function sandboxRoutes(simulation: SandboxSimulation): Route[] {
  return [
    route({
      method: 'POST',
      path: '/projects/{projectId}/channels/{channelId}/sandbox/inbound',
      body: simulatedInboundBody,
      doc: {
        summary: 'Simulate a message received on a sandbox channel',
        description:
          '`{ from, text }` for SMS and WhatsApp, `{ from, subject, text, html? }` for email: emits `message.received` ' +
          'as a real provider report would.',
        tags: ['Channels'],
        responses: { 202: { description: 'The event id.', body: z.object({ eventId: z.string() }) } },
        errors: { 409: ['CONFLICT'] },
      },
      handle: async ({ params, body }) =>
        json(
          202,
          await simulation.inbound(params.projectId!, params.channelId!, body).catch((e: unknown) => {
            throw asHttpError(e);
          }),
        ),
    }),
    route({
      method: 'POST',
      path: '/projects/{projectId}/channels/{channelId}/sandbox/status',
      body: simulatedStatusBody,
      doc: {
        summary: 'Simulate a delivery receipt on a sandbox channel',
        description:
          "A status for one of the channel's sent messages, under the same rules as a provider's: forward only " +
          '(sent < delivered < read; read and failed final), once each. `eventId` is absent when nothing changed.',
        tags: ['Channels'],
        responses: { 202: { description: 'Accepted.', body: z.object({ eventId: z.optional(z.string()) }) } },
        errors: { 409: ['CONFLICT'] },
      },
      handle: async ({ params, body }) =>
        json(
          202,
          await simulation.status(params.projectId!, params.channelId!, body).catch((e: unknown) => {
            throw asHttpError(e);
          }),
        ),
    }),
  ];
}

/** The simulation wired to DynamoDB and the event publisher (composition for the admin function). */
export function sandboxRoutesFromConfig(
  table: DynamoTable,
  channels: ChannelUseCases,
  events: EventPublisher,
  logger: Logger,
): Route[] {
  const statuses = new DynamoMessageStatusStore(table);
  return sandboxRoutes(
    makeSandboxSimulation({
      requireChannel: channels.requireChannel,
      statuses,
      apply: makeApplyReports({ statuses, events, log: { info: (m, extra) => logger.info(m, extra ?? {}) } }),
    }),
  );
}
