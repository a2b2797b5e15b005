/**
 * The port of the events kept for pollers (adapter: `adapters/dynamo-event-log.ts`): every event of a project, kept
 * 7 days, in the order the fan-out stored them. A position is an opaque, ordered string: the log goes on after it.
 */

/** One event as the fan-out hands it over: the envelope itself, or (a large one) its key in the payload store. */
export interface LoggedEvent {
  projectId: string;
  eventId: string;
  eventType: string;
  body?: string;
  bodyRef?: string;
}

export interface EventLogPage {
  items: (LoggedEvent & { position: string })[];
  /** Where the next read goes on (the last item's position, or as far as this read looked). */
  next: string;
  /** Nothing more before `beforeMs`. */
  exhausted: boolean;
}

export interface EventLog {
  /** Stores a batch's events in their order; rejects (nothing to trust) when not all were stored in time. */
  append(events: readonly LoggedEvent[]): Promise<void>;
  /** The project's events after `after` ('' = the oldest kept) stored before `beforeMs`, oldest first. */
  read(projectId: string, after: string, beforeMs: number, limit: number): Promise<EventLogPage>;
}

/** How long events are kept for pollers. */
export const POLL_RETENTION_DAYS = 7;
