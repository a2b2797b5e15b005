import type { IncomingMessage } from 'node:http';
import type { RunningService } from '#local/service.ts';

/**
 * Records the DynamoDB operations the service sends, as dynalite receives them (`X-Amz-Target`: `GetItem`,
 * `UpdateItem`...): the wire, whatever client or module sent them.
 */
export function recordDynamoCalls(service: RunningService) {
  const calls: string[] = [];
  const listener = (req: IncomingMessage) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    calls.push(target.slice(target.indexOf('.') + 1));
  };
  service.emulators.dynamoServer.on('request', listener);
  return {
    calls,
    reset: () => void calls.splice(0),
    stop: () => void service.emulators.dynamoServer.off('request', listener),
  };
}

/**
 * The item operations of one generation with a bot, on `/completion` and `/chat/completions` alike: token GetItem,
 * rate-limit UpdateItem, bot GetItem (with its knowledge index version), charge UpdateItem, settle UpdateItem.
 */
export const BOT_COMPLETION_OPERATIONS = ['GetItem', 'UpdateItem', 'GetItem', 'UpdateItem', 'UpdateItem'];
