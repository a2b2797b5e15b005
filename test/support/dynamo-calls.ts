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
  const server = service.emulators.dynamoServer;
  if (!server) throw new Error('counting DynamoDB calls needs the stand-ins on this thread: start the service with emulatorsThread: false');
  server.on('request', listener);
  return {
    calls,
    reset: () => void calls.splice(0),
    stop: () => void server.off('request', listener),
  };
}
