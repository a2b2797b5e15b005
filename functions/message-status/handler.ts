import type { CustomTokenGrant } from '#shared/auth/token-store.ts';
import { customTokenAuth } from '#shared/http/custom-token-auth.ts';
import { HttpError } from '#shared/http/errors.ts';
import { httpFunction } from '#shared/http/middleware.ts';
import { json, type HttpEvent } from '#shared/http/types.ts';
import { MessageNotFoundError } from '#shared/messaging/get-message.ts';
import { messageStatusView } from '#shared/messaging/message-status.ts';
import { authenticate, getMessage, logger } from './wiring.ts';

/** `GET /api/integration/messages/{messageId}`: a message's status and history, for the custom token's channel. */
export const handler = httpFunction(logger)
  .use(customTokenAuth(authenticate, logger))
  .handler(async (event: HttpEvent) => {
    const grant = (event as HttpEvent<unknown, CustomTokenGrant>).auth;
    try {
      return json(200, messageStatusView(await getMessage(grant, event.pathParameters?.messageId ?? '')));
    } catch (error) {
      if (error instanceof MessageNotFoundError) throw new HttpError(404, error.code, error.message);
      throw error;
    }
  });
