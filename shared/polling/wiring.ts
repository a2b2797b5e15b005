import type { IntegrationStore } from '../integrations/index.ts';
import { matchesFilter } from '../integrations/index.ts';
import type { DynamoTable } from '../kernel/aws/dynamo-table.ts';
import type { RateLimiter } from '../ratelimit/index.ts';
import type { SecretBox } from '../kernel/secret-box.ts';
import { DynamoEventLog } from './adapters/dynamo-event-log.ts';
import { pollEventsHandler } from './api/events-route.ts';
import type { EventLog } from './event-log.ts';
import { makePollEvents, type PollCursors, type PollerRules } from './poll-events.ts';
import { readAhead } from './read-ahead.ts';
import { pollingSettings } from './settings.ts';

/** The log the fan-out appends to (each batch within `POLL_APPEND_TIMEOUT_MS`, or failed) and pollers read. */
export function eventLogOn(table: DynamoTable): EventLog {
  const log = new DynamoEventLog(table);
  const timeoutMs = pollingSettings.read().POLL_APPEND_TIMEOUT_MS;
  return {
    read: (...args) => log.read(...args),
    append: (events) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the event log write took too long')), timeoutMs);
        log.append(events).then(
          () => {
            clearTimeout(timer);
            resolve();
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error);
          },
        );
      }),
  };
}

/** Cursors sealed with the service's secret box, bound to their poller: any other value does not open. */
export function sealedCursors(box: SecretBox): PollCursors {
  const context = (integrationId: string) => `poll-cursor:${integrationId}`;
  return {
    seal: (integrationId, position) => box.seal(position, context(integrationId)),
    open(integrationId, cursor) {
      try {
        return box.open(cursor, context(integrationId));
      } catch {
        return undefined;
      }
    },
  };
}

/** `GET /api/integration/events`: the use case on the table, the poller's rules read from its integration. */
export function wirePolling(deps: {
  table: DynamoTable;
  secrets: SecretBox;
  integrations: Pick<IntegrationStore, 'get'>;
  bodyOf: (bodyRef: string) => Promise<string | undefined>;
  /** Each poller's requests a second (`POLL_RATE_LIMIT_PER_SECOND`). */
  limiter: RateLimiter;
}) {
  const settings = pollingSettings.read();
  const pollEvents = makePollEvents({
    // A consumer catching up is read several pages ahead (per instance): one merged read per several pages.
    log: readAhead(new DynamoEventLog(deps.table)),
    cursors: sealedCursors(deps.secrets),
    bodyOf: deps.bodyOf,
    settleMs: settings.POLL_SETTLE_MS,
  });
  const rulesOf = async (projectId: string, integrationId: string): Promise<PollerRules | undefined> => {
    const poller = await deps.integrations.get(projectId, integrationId);
    if (poller?.product !== 'poller') return undefined;
    return {
      accepts: (eventType, envelope) =>
        (poller.eventTypes === null || (poller.eventTypes as string[]).includes(eventType)) &&
        (poller.filter === null || matchesFilter(poller.filter, envelope() as never)),
    };
  };
  return { handler: pollEventsHandler({ pollEvents, rulesOf, limiter: deps.limiter }) };
}
