import type { IncomingMessage } from 'node:http';
import type { RunningService } from '#local/service.ts';

/**
 * Records the DynamoDB operations the service sends, as dynalite receives them (`X-Amz-Target`: `GetItem`,
 * `UpdateItem`...): the wire, whatever client or module sent them.
 */
export function recordDynamoCalls(service: RunningService) {
  const calls: string[] = [];
  /**
   * Each call as `<operation> <kind>`, the kind being the prefixes of the first two keys in its body (`GetItem
   * PRJ/CH`: a channel under its project; `UpdateItem DLV`: a delivery record), filled in once its body is read.
   */
  const items: string[] = [];
  let generation = 0;
  const listener = (req: IncomingMessage) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const op = target.slice(target.indexOf('.') + 1);
    const index = calls.push(op) - 1;
    const recordedIn = generation;
    items[index] = op;
    let body = '';
    req.on('data', (chunk: Buffer) => {
      if (body.length < 4096) body += chunk;
    });
    req.on('end', () => {
      const kinds = [...body.matchAll(/"S":"([A-Za-z_]+)#/g)].slice(0, 2).map((m) => m[1]);
      if (recordedIn === generation) items[index] = `${op} ${kinds.join('/')}`;
    });
  };
  service.emulators.dynamoServer.on('request', listener);
  return {
    calls,
    items,
    reset: () => {
      generation++;
      calls.splice(0);
      items.splice(0);
    },
    stop: () => void service.emulators.dynamoServer.off('request', listener),
  };
}

/**
 * The item operations of one generation with a bot, on `/completion` and `/chat/completions` alike: token GetItem,
 * rate-limit UpdateItem, bot GetItem (with its knowledge index version), charge UpdateItem, settle UpdateItem.
 */
export const BOT_COMPLETION_OPERATIONS = ['GetItem', 'UpdateItem', 'GetItem', 'UpdateItem', 'UpdateItem'];
