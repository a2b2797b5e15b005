import type { EventLog, EventLogPage } from './event-log.ts';

type Logged = EventLogPage['items'][number];

/** How a consumer catching up is read ahead of its pages, within one instance. */
export interface ReadAheadLimits {
  /** Events one read ahead takes at most (several pages of the largest size). */
  events: number;
  /** Bytes of envelopes one read ahead keeps; the rest is read again when asked for. */
  entryBytes: number;
  /** Bytes kept for all consumers together, and positions remembered; the oldest go first. */
  totalBytes: number;
  entries: number;
  /** How long what was read ahead (or a position a consumer is expected at) is kept. */
  keepMs: number;
}

const DEFAULT_LIMITS: ReadAheadLimits = {
  events: 1_000,
  entryBytes: 1 << 20,
  totalBytes: 16 << 20,
  entries: 10_000,
  keepMs: 60_000,
};

/** Events read ahead and not yet served, starting right after a position; or (no items) a position a page ended at. */
interface Kept {
  items: Logged[];
  /** Where the log goes on after the items (the read's `next`). */
  next: string;
  exhausted: boolean;
  /** The read's bound: nothing stored at or after it was looked for. */
  beforeMs: number;
  bytes: number;
  /** Envelope bytes per event seen, to size a read ahead within `entryBytes`. */
  bytesPerEvent: number;
  keptAt: number;
}

/**
 * The event log for a consumer catching up: a page that ends where more is waiting marks its end, and when the next
 * page asks this instance for that very position, the log is read several pages ahead (up to `events`), the rest kept
 * here for the pages after. A consumer reading one page after another then costs the log's partitions one merged read
 * per several pages instead of one per page (a merged read costs a Query per partition whatever its size, and reads
 * past its end on each partition). A position nobody continues from costs nothing more than today: only a
 * continuation is read ahead.
 *
 * What is kept is final: a read covers only events stored before its bound (already settled: the fan-out's write of
 * a batch lands before it or not at all), and a merged read is complete up to its `next`, so the kept events are
 * exactly what a read from the same position would return now, in the same order. The store is shared by every
 * poller of a project (the log is the project's; each poller's rules apply after), per instance: nothing to keep in
 * step across instances, and a consumer whose next page lands elsewhere is read there as usual.
 */
export function readAhead(
  log: Pick<EventLog, 'read'>,
  limits: ReadAheadLimits = DEFAULT_LIMITS,
  now: () => number = Date.now,
): Pick<EventLog, 'read'> {
  const kept = new Map<string, Kept>();
  let keptBytes = 0;
  const keyOf = (projectId: string, after: string) => `${projectId}\n${after}`;

  function take(key: string): Kept | undefined {
    const entry = kept.get(key);
    if (!entry) return undefined;
    kept.delete(key);
    keptBytes -= entry.bytes;
    return entry.keptAt + limits.keepMs > now() ? entry : undefined;
  }

  function keep(key: string, entry: Omit<Kept, 'bytes' | 'keptAt'>) {
    let bytes = 0;
    let count = 0;
    for (const item of entry.items) {
      const size = sizeOf(item);
      if (bytes + size > limits.entryBytes) break;
      bytes += size;
      count++;
    }
    // A tail cut off is read again from the last event kept: the entry still covers everything up to it.
    const items = count < entry.items.length ? entry.items.slice(0, count) : entry.items;
    const cut = items !== entry.items;
    if (cut && !items.length) return;
    const next = cut ? items.at(-1)!.position : entry.next;
    const old = kept.get(key);
    if (old) {
      kept.delete(key);
      keptBytes -= old.bytes;
    }
    kept.set(key, { ...entry, items, next, exhausted: entry.exhausted && !cut, bytes, keptAt: now() });
    keptBytes += bytes;
    // A Map iterates in insertion order: the first entries are the oldest.
    for (const [k, e] of kept) {
      if (keptBytes <= limits.totalBytes && kept.size <= limits.entries) break;
      kept.delete(k);
      keptBytes -= e.bytes;
    }
  }

  /** Serves `limit` of what was kept; the rest stays kept after the last served, or the end is marked. */
  function serve(projectId: string, entry: Kept, limit: number, beforeMs: number): EventLogPage {
    const items = entry.items.slice(0, limit);
    if (entry.items.length > limit) {
      const last = items.at(-1)!.position;
      keep(keyOf(projectId, last), { ...entry, items: entry.items.slice(limit) });
      return { items, next: last, exhausted: false };
    }
    // All served: the end of what was read. Caught up then only as of that read's bound.
    if (!entry.exhausted) keep(keyOf(projectId, entry.next), { ...entry, items: [] });
    return { items, next: entry.next, exhausted: entry.exhausted && beforeMs <= entry.beforeMs };
  }

  return {
    async read(projectId, after, beforeMs, limit) {
      const key = keyOf(projectId, after);
      const entry = take(key);
      if (entry?.items.length) return serve(projectId, entry, limit, beforeMs);
      // A page handed out here ended at `after` with more waiting: this consumer is catching up, read ahead.
      const size = entry ? aheadSize(limit, entry.bytesPerEvent, limits) : limit;
      const page = await log.read(projectId, after, beforeMs, size);
      const bytes = page.items.reduce((sum, item) => sum + sizeOf(item), 0);
      const read: Kept = {
        items: page.items,
        next: page.next,
        exhausted: page.exhausted,
        beforeMs,
        bytes: 0,
        bytesPerEvent: page.items.length ? bytes / page.items.length : (entry?.bytesPerEvent ?? 0),
        keptAt: 0,
      };
      return serve(projectId, read, limit, beforeMs);
    },
  };
}

/** A read ahead: several pages, as many events as `entryBytes` holds at the size seen, never less than the page. */
function aheadSize(limit: number, bytesPerEvent: number, limits: ReadAheadLimits): number {
  const fit = Math.floor(limits.entryBytes / Math.max(1, bytesPerEvent));
  return Math.max(limit, Math.min(limits.events, fit));
}

/** An event's weight in memory: its envelope (or payload key) and position, about two bytes a character. */
const sizeOf = (item: Logged) =>
  2 * ((item.body?.length ?? 0) + (item.bodyRef?.length ?? 0) + item.position.length + item.eventId.length) + 64;
