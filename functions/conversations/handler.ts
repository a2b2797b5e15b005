import { wireCustomTokenAuth } from '#shared/auth/index.ts';
import { wireConversations } from '#shared/messaging/index.ts';
import { mediaStoreFromConfig } from '#functions/_wiring/media.ts';
import { platform as functionPlatform } from '#functions/_wiring/platform.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';

// Composition root: built once per cold start.
const platform = functionPlatform('conversations');
const { cfg } = platform;

/**
 * `GET /api/integration/conversations/{contact}` and `…/{contact}/messages`: a contact's conversation on the custom
 * token's channel (shared/messaging/api/public-conversations.ts).
 */
export const handler = wireConversations(platform, {
  auth: wireCustomTokenAuth(platform),
  secretBox: await secretBoxFromConfig(cfg),
  mediaStore: mediaStoreFromConfig(cfg),
});
