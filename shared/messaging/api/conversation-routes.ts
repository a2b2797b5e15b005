import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { conversation, conversationMessagePage, suppression, suppressionPage } from './schemas.ts';
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

/** The OpenAPI documentation of {@link conversationRoutes}, beside their declarations. */
export function conversationRouteDocs(): RouteDocs<typeof conversationRoutes> {
  return {
    listSuppressions: {
      operationId: 'listSuppressions',
      summary: 'Contacts the channel does not send to',
      description:
        'Contacts that opted out (an opt-out keyword, their own List-Unsubscribe address) or whose mail bounced for good, in ' +
        'contact order, a page at a time. A send to one answers 409 `RECIPIENT_OPTED_OUT`.',
      tags: ['Channels'],
      responses: { 200: { description: 'A page of suppressions.', body: suppressionPage } },
    },
    getSuppression: {
      operationId: 'getSuppression',
      summary: 'Whether a contact is suppressed, and why',
      description: '404 `NOT_FOUND` when the contact is not suppressed; 400 for a contact the channel cannot write.',
      tags: ['Channels'],
      // A contact the channel cannot write (not a phone number on SMS and WhatsApp, not an address on email): 400.
      errors: { 400: ['VALIDATION_ERROR'] },
      responses: { 200: { description: 'The suppression.', body: suppression } },
    },
    deleteSuppression: {
      operationId: 'deleteSuppression',
      summary: 'Send to a suppressed contact again',
      description:
        'Lifts the suppression and emits `contact.opted_in` with `reason: "admin"`. 404 `NOT_FOUND` when the contact ' +
        'is not suppressed.',
      tags: ['Channels'],
      // A contact the channel cannot write (not a phone number on SMS and WhatsApp, not an address on email): 400.
      errors: { 400: ['VALIDATION_ERROR'] },
      responses: { 204: { description: 'Lifted.' } },
    },
    getChannelConversation: {
      operationId: 'getChannelConversation',
      summary: "A contact's conversation: window and opt-out",
      description:
        'What `GET /api/integration/conversations/{contact}` answers a custom token of this channel: the conversation ' +
        'id, the WhatsApp 24-hour window, and whether the contact opted out.',
      tags: ['Channels'],
      // A contact the channel cannot write (not a phone number on SMS and WhatsApp, not an address on email): 400.
      errors: { 400: ['VALIDATION_ERROR'] },
      responses: { 200: { description: 'The conversation.', body: conversation } },
    },
    listChannelMessages: {
      operationId: 'listChannelMessages',
      summary: "A contact's messages on the channel",
      description:
        'Both directions, newest first, a page at a time; media URLs are signed by this read (valid 7 days). What ' +
        '`GET /api/integration/conversations/{contact}/messages` answers a custom token.',
      tags: ['Channels'],
      // A contact the channel cannot write (not a phone number on SMS and WhatsApp, not an address on email): 400.
      errors: { 400: ['VALIDATION_ERROR'] },
      responses: { 200: { description: 'A page of messages, newest first.', body: conversationMessagePage } },
    },
  };
}
