import { messageOfMark, type PreparedEvent } from '../../events/index.ts';
import { failpoint } from '../../kernel/failpoints.ts';
import type { ApplyReportsDeps, ReportedEvent } from './apply-ports.ts';

/**
 * How a report's change gets its event out: each change writes its event's mark in the same conditional write, then
 * publishes, then clears the mark. These are the publishing half, shared by received messages, statuses and
 * suppression changes; a change found already applied publishes again only what a crash left marked.
 */
export function makeMarkedEvents(
  deps: Pick<ApplyReportsDeps, 'statuses' | 'events' | 'log' | 'exclusive' | 'meanwhile' | 'sleep'> & {
    now: () => Date;
  },
) {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  /**
   * What is still marked after a short wait. A change found applied with its mark pending is either a crash's (the
   * mark stays: publish it) or another worker's still publishing it (a provider's retry processed at the same moment:
   * its mark goes within milliseconds). Waiting up to about 1.5 s tells the two apart, so the retry does not deliver
   * the event a second time; a crash's event goes out that much later.
   */
  async function settled<T>(read: () => Promise<T[]>): Promise<T[]> {
    let pending = await read();
    for (const ms of deps.exclusive ? [] : SETTLE_WAITS_MS) {
      if (!pending.length) break;
      await sleep(ms);
      pending = await read();
    }
    return pending;
  }

  /** On the queue, then the mark goes; a mark that cannot be cleared now is cleared by the sweep (same id again). */
  async function publishMarked(messageId: string, prepared: PreparedEvent): Promise<void> {
    await deps.events.send(prepared.message);
    failpoint('after-publish');
    const clearing = deps.statuses
      .clearEvent(messageId, prepared.message.eventId)
      .catch((cause: unknown) =>
        deps.log.info('event mark not cleared: the sweep will', { messageId, cause: String(cause) }),
      );
    if (deps.meanwhile) deps.meanwhile(clearing);
    else await clearing;
  }

  /** The change was already applied: what is still marked for it was never published (a crash), so it is now. */
  async function republish(messageId: string, type: string): Promise<ReportedEvent[]> {
    const at = deps.now().getTime();
    const marked = (await deps.statuses.pendingEvents(messageId))
      .map((mark) => ({ mark, message: messageOfMark(mark) }))
      .filter(({ message }) => message.eventType === type);
    // A mark written moments ago is most likely another worker's still publishing (a provider's retry processed at
    // the same moment): publishing it here would deliver the event twice. It is left to that worker, or, if that
    // worker died, to the sweep (EVENT_SWEEP_AFTER_SECONDS). Older marks are a crash's: published now.
    const pending = marked.filter(
      ({ mark }) => deps.exclusive || mark.writtenAt === undefined || at - mark.writtenAt >= FRESH_MARK_MS,
    );
    if (pending.length < marked.length)
      deps.log.info('a fresh event mark left to its writer or the sweep', { messageId, type });
    for (const { mark, message } of pending) {
      deps.log.info('publishing an event its change left unpublished', { messageId, eventId: mark.eventId });
      await deps.events.send(message);
      await deps.statuses.clearEvent(messageId, mark.eventId);
    }
    return pending.map(({ message }) => ({ id: message.eventId, type: message.eventType }));
  }

  return { settled, publishMarked, republish };
}

export type MarkedEvents = ReturnType<typeof makeMarkedEvents>;

/**
 * How old a mark must be before a retry republishes it (see `republish`). Well past the milliseconds a publish takes,
 * even on a loaded machine; below the inbound queue's visibility timeout on AWS, so a crash's retry publishes at once.
 */
const FRESH_MARK_MS = 10_000;

/** The waits before a retry publishes what it finds still marked (see `settled`). */
const SETTLE_WAITS_MS = [50, 200, 500, 750];
