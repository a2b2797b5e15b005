import { wireCustomTokenAuth } from '#shared/auth/index.ts';
import { wireMessageStatus } from '#shared/messaging/index.ts';
import { mediaStoreFromConfig } from '#functions/_wiring/media.ts';
import { platform as functionPlatform } from '#functions/_wiring/platform.ts';

// Composition root: built once per cold start.
const platform = functionPlatform('message-status');

/**
 * `GET /api/integration/messages/{messageId}` (a message's status, media URLs re-signed on every read), `DELETE`
 * and `PATCH` (a scheduled message canceled or moved): shared/messaging/api/message-route.ts.
 */
export const handler = wireMessageStatus(platform, {
  auth: wireCustomTokenAuth(platform),
  mediaStore: mediaStoreFromConfig(platform.cfg),
});
