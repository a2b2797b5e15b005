import { ValidationError } from '../kernel/domain-error.ts';
import type { EventLog } from './event-log.ts';

/** What a poll needs of its poller: the same subscription rules as a webhook's. */
export interface PollerRules {
  /** Whether the envelope passes the poller's `eventTypes` and `filter`. */
  accepts(eventType: string, envelope: () => unknown): boolean;
}

/** Cursors only this service makes, each for one poller: a position sealed and bound to the poller. */
export interface PollCursors {
  seal(integrationId: string, position: string): string;
  /** The position, or undefined when the cursor is not one this service gave this poller. */
  open(integrationId: string, cursor: string): string | undefined;
}

export interface PollEventsDeps {
  log: Pick<EventLog, 'read'>;
  cursors: PollCursors;
  /** A large envelope's body, from the payload store; undefined when gone. */
  bodyOf: (bodyRef: string) => Promise<string | undefined>;
  /**
   * Events are served once stored this long: the fan-out's write of a batch either lands within it or fails (and is
   * stored again later), so a consumer that has read past a moment never misses an event stored before it.
   */
  settleMs: number;
  now?: () => number;
}

/** Reads per request, at most: a filter that drops most events ends the page early (not `done`), with its cursor. */
const MAX_READS = 4;

/**
 * Envelope bytes a page holds, at most (one larger event is served alone): the function's answer carries the page as
 * a JSON string, where escaping can double it, within a Lambda answer's 6 MB. Events of up to 200 KB are stored
 * inline, so a full page of large ones would not fit.
 */
export const MAX_PAGE_BYTES = 2.5 * 2 ** 20;

/**
 * `GET /api/integration/events` for one poller:
 * 1. the cursor opened (none: the oldest kept event); a cursor this service did not issue for this poller is 400;
 * 2. the log read oldest first from there, up to `settleMs` ago, page after page while the poller's rules drop
 *    events, at most {@link MAX_READS} reads, and envelopes up to {@link MAX_PAGE_BYTES};
 * 3. answered with the envelopes, `nextCursor` (always: a caught-up consumer resumes from it) and `done` (caught up).
 */
export function makePollEvents(deps: PollEventsDeps) {
  const now = deps.now ?? Date.now;
  return async function pollEvents(
    poller: { projectId: string; integrationId: string; rules: PollerRules },
    request: { cursor?: string; limit: number },
  ): Promise<PolledPage> {
    let position = '';
    if (request.cursor !== undefined) {
      const opened = deps.cursors.open(poller.integrationId, request.cursor);
      if (opened === undefined) {
        throw new ValidationError('The cursor is not one this service gave this poller.', [
          { path: 'cursor', message: "Pass the previous answer's nextCursor unchanged", code: 'invalid_cursor' },
        ]);
      }
      position = opened;
    }
    const before = now() - deps.settleMs;
    const items: string[] = [];
    let bytes = 0;
    let full = false;
    let done = false;
    for (let reads = 0; reads < MAX_READS && items.length < request.limit && !done && !full; reads++) {
      const page = await deps.log.read(poller.projectId, position, before, request.limit - items.length);
      for (const event of page.items) {
        const body = event.body ?? (event.bodyRef ? await deps.bodyOf(event.bodyRef) : undefined);
        if (body !== undefined) {
          // The envelope is parsed only for a filter that reads it: the page carries the stored text as it is.
          let parsed: unknown;
          const envelope = () => (parsed ??= JSON.parse(body));
          if (poller.rules.accepts(event.eventType, envelope)) {
            const size = Buffer.byteLength(body);
            // The page ends before the event that would take it past its bytes; that event opens the next page.
            if (items.length && bytes + size > MAX_PAGE_BYTES) {
              full = true;
              break;
            }
            bytes += size;
            items.push(body);
          }
        } // else a large body whose stored copy expired: nothing left to show
        position = event.position;
      }
      if (full) break;
      if (page.exhausted) done = true;
      position = page.next;
    }
    return { items, nextCursor: deps.cursors.seal(poller.integrationId, position), done };
  };
}

/** A page: `items` are the envelopes' JSON texts, as stored by the fan-out (what a webhook receives). */
export interface PolledPage {
  items: string[];
  nextCursor: string;
  done: boolean;
}

export type PollEvents = ReturnType<typeof makePollEvents>;
