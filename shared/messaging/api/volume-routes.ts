import type { RouteDocs } from '../../contract/api-docs.ts';
import { pageOf, pageQuery } from '../../http/pagination.ts';
import { route, type RouteHandlers } from '../../http/router.ts';
import { json, noContent } from '../../http/types.ts';
import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import type { DeferredMessage } from '../volume/deferred.ts';
import type { ChannelVolume } from '../volume/channel-volume.ts';
import { batchProgress } from './volume-docs.ts';

const scheduledMessage = withMeta(
  z.object({
    messageId: z.string(),
    to: z.union([z.string(), z.array(z.string())]),
    sendAt: z.string(),
    createdAt: z.string(),
    batchId: z.optional(z.string()),
  }),
  { id: 'ScheduledMessage' },
);
const scheduledPage = pageOf(scheduledMessage, 'ScheduledMessagePage', 'Scheduled messages, soonest first');
const batchEntry = withMeta(z.object({ batchId: z.string(), total: z.number(), createdAt: z.string() }), {
  id: 'BatchEntry',
});
const batchPage = pageOf(batchEntry, 'BatchPage', 'Batches, newest first');

const scheduledView = (m: DeferredMessage) => ({
  messageId: m.messageId,
  to: m.to,
  sendAt: m.sendAt!,
  createdAt: m.createdAt,
  ...(m.batchId ? { batchId: m.batchId } : {}),
});

const channelPath = '/projects/{projectId}/channels/{channelId}';

/** A channel's sends at volume, as the console shows them: scheduled messages (cancel) and batches (progress). */
export const volumeRoutes = {
  listScheduledMessages: route({ method: 'GET', path: `${channelPath}/scheduled`, query: pageQuery }),
  cancelScheduledMessage: route({ method: 'DELETE', path: `${channelPath}/scheduled/{messageId}` }),
  listBatches: route({ method: 'GET', path: `${channelPath}/batches`, query: pageQuery }),
  getBatch: route({ method: 'GET', path: `${channelPath}/batches/{batchId}` }),
};

/** The routes above in the API reference. */
export function volumeRouteDocs(): RouteDocs<typeof volumeRoutes> {
  return {
    listScheduledMessages: {
      operationId: 'listScheduledMessages',
      summary: "A channel's scheduled messages",
      description: 'Messages sent with `sendAt` that have not left yet, soonest first, a page at a time.',
      tags: ['Channels'],
      responses: { 200: { description: 'A page of scheduled messages.', body: scheduledPage } },
    },
    cancelScheduledMessage: {
      operationId: 'deleteScheduledSend',
      summary: 'Cancel a scheduled message',
      description: 'As `DELETE /api/integration/messages/{id}`: 204, never sent; 409 `NOT_SCHEDULED` once it left.',
      tags: ['Channels'],
      responses: { 204: { description: 'Canceled.' } },
      errors: { 409: ['NOT_SCHEDULED'] },
    },
    listBatches: {
      operationId: 'listBatches',
      summary: "A channel's batches",
      description: 'Batches sent on the channel, newest first: id, size, time.',
      tags: ['Channels'],
      responses: { 200: { description: 'A page of batches.', body: batchPage } },
    },
    getBatch: {
      operationId: 'getChannelBatch',
      summary: "A batch's progress",
      description: 'As `GET /api/integration/batches/{batchId}`: its items counted as their messages are now.',
      tags: ['Channels'],
      responses: { 200: { description: 'The counts.', body: batchProgress } },
    },
  };
}

/** What serves the routes above. */
export function volumeHandlers(volume: ChannelVolume): RouteHandlers<typeof volumeRoutes> {
  return {
    listScheduledMessages: async ({ params, query }) => {
      const page = await volume.listScheduled(params.projectId, params.channelId, query);
      return json(200, { ...page, items: page.items.map(scheduledView) });
    },
    cancelScheduledMessage: async ({ params }) => {
      await volume.cancelScheduled(params.projectId, params.channelId, params.messageId);
      return noContent();
    },
    listBatches: async ({ params, query }) =>
      json(200, await volume.listBatches(params.projectId, params.channelId, query)),
    getBatch: async ({ params }) =>
      json(200, await volume.batchProgress(params.projectId, params.channelId, params.batchId)),
  };
}
