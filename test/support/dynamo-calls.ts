import type { IncomingMessage } from 'node:http';
import type { RunningService } from '#local/service.ts';
import { BYPASS_HEADER } from '#local/throttle.ts';

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
  /**
   * Each item written, by the partition key's prefix (`DLV`: a delivery record), once its call's body is read: one
   * per PutItem, UpdateItem or DeleteItem, one per request of a BatchWriteItem.
   */
  const written: string[] = [];
  let generation = 0;
  const listener = (req: IncomingMessage) => {
    // The stand-in's own reads (local/throttle.ts, local/dynalite-fidelity.ts) are not the service's calls.
    if (req.headers[BYPASS_HEADER]) return;
    const target = String(req.headers['x-amz-target'] ?? '');
    const op = target.slice(target.indexOf('.') + 1);
    const index = calls.push(op) - 1;
    const recordedIn = generation;
    items[index] = op;
    // A batch's items are counted from its whole body; other calls need only their keys.
    const limit = op === 'BatchWriteItem' ? 16 * 1024 * 1024 : 4096;
    let body = '';
    req.on('data', (chunk: Buffer) => {
      if (body.length < limit) body += chunk;
    });
    req.on('end', () => {
      if (recordedIn !== generation) return;
      const kinds = [...body.matchAll(/"S":"([A-Za-z_]+)#/g)].slice(0, 2).map((m) => m[1]);
      items[index] = `${op} ${kinds.join('/')}`;
      if (['PutItem', 'UpdateItem', 'DeleteItem'].includes(op)) written.push(kinds[0] ?? '');
      if (op === 'BatchWriteItem') written.push(...batchWriteKinds(body));
    });
  };
  service.emulators.dynamoServer.on('request', listener);
  // The sweepers run on their own clock, whatever the request: their Queries, the due sweep's `DUE#` partitions and
  // its cursor (a key with no `#`).
  const foreground = () => items.filter((op) => !/^Query|^\S+ (DUE|$)/.test(op));
  /**
   * The item calls a request made (`GetItem TOKEN`...), sweepers' left out, once at least `expected` are in and
   * every recorded call's body is read (a call's kind is known only then); after 2 s, what there is.
   */
  async function requestCalls(expected: number): Promise<string[]> {
    const deadline = performance.now() + 2_000;
    while (!(items.every((op) => op.includes(' ')) && foreground().length >= expected)) {
      if (performance.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return foreground();
  }
  return {
    calls,
    items,
    written,
    requestCalls,
    /** {@link requestCalls} by operation name only (`GetItem`), in the order dynalite received them. */
    requestOps: async (expected: number) =>
      (await requestCalls(expected)).map((call) => call.slice(0, call.indexOf(' '))),
    reset: () => {
      generation++;
      calls.splice(0);
      items.splice(0);
      written.splice(0);
    },
    stop: () => void service.emulators.dynamoServer.off('request', listener),
  };
}

/** The partition key prefix of each request in a BatchWriteItem body. */
function batchWriteKinds(body: string): string[] {
  const requests = Object.values(
    (JSON.parse(body) as { RequestItems: Record<string, Record<string, { Item?: KeyedItem; Key?: KeyedItem }>[]> })
      .RequestItems,
  ).flat();
  return requests.map((r) => {
    const key = (r.PutRequest?.Item ?? r.DeleteRequest?.Key)?.pk?.S ?? '';
    return key.slice(0, Math.max(0, key.indexOf('#')));
  });
}
type KeyedItem = { pk?: { S?: string } };

/**
 * The item operations of one generation with a bot, on `/completion` and `/chat/completions` alike: token GetItem,
 * rate-limit UpdateItem, bot GetItem (with its knowledge index version), charge UpdateItem, settle UpdateItem.
 */
export const BOT_COMPLETION_OPERATIONS = ['GetItem', 'UpdateItem', 'GetItem', 'UpdateItem', 'UpdateItem'];
