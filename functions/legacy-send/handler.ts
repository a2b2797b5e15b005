import { createLogger } from '#shared/kernel/logger.ts';
import { legacySendHandler } from '#shared/messaging/index.ts';

/** The deprecated `/api/integration/send`, any method: 410 GONE (shared/messaging/api/legacy-send.ts). */
export const handler = legacySendHandler(createLogger('legacy-send'));
