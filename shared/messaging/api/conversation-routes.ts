import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json, noContent } from '#shared/http/types.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import type { Channel } from '../channel.ts';
import type { ConversationQueries } from '../conversations.ts';

/**
 * A channel's suppressions and, for the console, its conversations: the window and opt-out of a
 * contact and its messages, as a custom token sees them on `/api/integration/conversations/{contact}`.
 */
export const conversationRoutes = {
  listSuppressions: route({
    method: 'GET',
    path: '/projects/{projectId}/channels/{channelId}/suppressions',
    query: pageQuery,
  }),
  getSuppression: route({ method: 'GET', path: '/projects/{projectId}/channels/{channelId}/suppressions/{contact}' }),
  deleteSuppression: route({
    method: 'DELETE',
    path: '/projects/{projectId}/channels/{channelId}/suppressions/{contact}',
  }),
  getChannelConversation: route({
    method: 'GET',
    path: '/projects/{projectId}/channels/{channelId}/conversations/{contact}',
  }),
  listChannelMessages: route({
    method: 'GET',
    path: '/projects/{projectId}/channels/{channelId}/conversations/{contact}/messages',
    query: pageQuery,
  }),
};

/** What serves them: the channel is the project's (404 otherwise), the contact one the channel can write (400). */
export function conversationHandlers(
  requireChannel: (projectId: string, channelId: string) => Promise<Channel>,
  conversations: ConversationQueries,
): RouteHandlers<typeof conversationRoutes> {
  const channelOf = (params: { projectId: string; channelId: string }) =>
    requireChannel(params.projectId, params.channelId);
  return {
    listSuppressions: async ({ params, query }) =>
      json(200, await conversations.suppressions(await channelOf(params), query)),
    getSuppression: async ({ params }) =>
      json(200, await conversations.suppression(await channelOf(params), params.contact)),
    deleteSuppression: async ({ params }) => {
      await conversations.removeSuppression(await channelOf(params), params.contact);
      return noContent();
    },
    getChannelConversation: async ({ params }) =>
      json(200, await conversations.conversation(await channelOf(params), params.contact)),
    listChannelMessages: async ({ params, query }) =>
      json(200, await conversations.messages(await channelOf(params), params.contact, query)),
  };
}
