import { type CustomTokenAuthPorts, type CustomTokenGrant, customTokenFunction } from '../../auth/index.ts';
import { jsonObjectBody } from '../../http/presets.ts';
import { json, noContent } from '../../http/types.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { makeGetMessage } from '../get-message.ts';
import type { MediaStore } from '../media.ts';
import { messageStatusView } from '../message-status.ts';
import type { makeManageScheduled } from '../volume/manage-scheduled.ts';

/**
 * `GET /api/integration/messages/{messageId}`: a message's status and history, its conversation, what was said and
 * its media (URLs re-signed, valid 7 days from this read), for the custom token's channel; a deferred one shows
 * `queued`, `scheduled` or `canceled` and its `sendAt`. `DELETE`: cancels a scheduled message (204); `PATCH
 * { sendAt }`: moves it (200, the message as GET shows it); either on a message not scheduled: 409 NOT_SCHEDULED.
 * 401 ERR_NO_PERMISSION as on send; 404 MESSAGE_NOT_FOUND for an unknown id or another channel's message.
 */
export function messageHandler(
  observed: { logger: Logger },
  deps: {
    auth: CustomTokenAuthPorts;
    getMessage: ReturnType<typeof makeGetMessage>;
    scheduled: ReturnType<typeof makeManageScheduled>;
    media: Pick<MediaStore, 'url'>;
  },
) {
  const { getMessage, scheduled, media } = deps;
  const preset = { logger: observed.logger, ...deps.auth };
  const view = async (grant: CustomTokenGrant, messageId: string) =>
    json(200, await messageStatusView(await getMessage(grant, messageId), media, new Date()));

  const get = customTokenFunction(preset).handler(async (event) =>
    view(event.auth, event.pathParameters?.messageId ?? ''),
  );
  const cancel = customTokenFunction(preset).handler(async (event) => {
    await scheduled.cancel(event.auth, event.pathParameters?.messageId ?? '');
    return noContent();
  });
  const move = customTokenFunction({ ...preset, body: jsonObjectBody() }).handler(async (event) => {
    const messageId = event.pathParameters?.messageId ?? '';
    await scheduled.reschedule(event.auth, messageId, event.parsedBody);
    return view(event.auth, messageId);
  });
  return (event: { httpMethod?: string }, context: unknown) => {
    type Args = Parameters<typeof get>;
    if (event.httpMethod === 'PATCH') return move(event as Parameters<typeof move>[0], context as Args[1]);
    return (event.httpMethod === 'DELETE' ? cancel : get)(event as Args[0], context as Args[1]);
  };
}
