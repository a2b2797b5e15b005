import { config } from '#shared/kernel/config.ts';
import {
  DynamoMessageStatusStore,
  makeGetMessage,
  makeManageScheduled,
  messageStatusView,
} from '#shared/messaging/index.ts';
import { customTokenFunction, wireCustomTokenAuth } from '#shared/auth/index.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { json, noContent } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { mediaStoreFromConfig } from '#functions/_wiring/media.ts';
import { deferredSendsOn } from '#functions/_wiring/outbound.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('message-status');
const table = dynamoTable(cfg);
const getMessage = makeGetMessage({ messages: new DynamoMessageStatusStore(table) });
const scheduled = makeManageScheduled(deferredSendsOn(cfg, table, logger));
// Media URLs are signed afresh on every read (valid 7 days from it): the function may read `media/`.
const media = mediaStoreFromConfig(cfg);
const auth = wireCustomTokenAuth({ table });
const view = async (grant: Parameters<typeof getMessage>[0], messageId: string) =>
  json(200, await messageStatusView(await getMessage(grant, messageId), media, new Date()));

const get = customTokenFunction({ logger, ...auth }).handler(async (event) =>
  view(event.auth, event.pathParameters?.messageId ?? ''),
);
const cancel = customTokenFunction({ logger, ...auth }).handler(async (event) => {
  await scheduled.cancel(event.auth, event.pathParameters?.messageId ?? '');
  return noContent();
});
const move = customTokenFunction({ logger, ...auth, body: jsonObjectBody() }).handler(async (event) => {
  const messageId = event.pathParameters?.messageId ?? '';
  await scheduled.reschedule(event.auth, messageId, event.parsedBody);
  return view(event.auth, messageId);
});

/**
 * `GET /api/integration/messages/{messageId}`: a message's status and history, its conversation, what was said and
 * its media (URLs re-signed, valid 7 days from this read), for the custom token's channel; a deferred one shows
 * `queued`, `scheduled` or `canceled` and its `sendAt`. `DELETE`: cancels a scheduled message (204); `PATCH
 * { sendAt }`: moves it (200, the message as GET shows it); either on a message not scheduled: 409 NOT_SCHEDULED.
 * 401 ERR_NO_PERMISSION as on send; 404 MESSAGE_NOT_FOUND for an unknown id or another channel's message.
 */
export const handler = (event: { httpMethod?: string }, context: unknown) => {
  type Args = Parameters<typeof get>;
  if (event.httpMethod === 'PATCH') return move(event as Parameters<typeof move>[0], context as Args[1]);
  return (event.httpMethod === 'DELETE' ? cancel : get)(event as Args[0], context as Args[1]);
};
