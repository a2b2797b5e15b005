/** Polling: every event of a project kept 7 days, read oldest first by `poller` integrations with a cursor. */
export { pollEventsDocs } from './api/events-route.ts';
export { type EventLog, type LoggedEvent, POLL_RETENTION_DAYS } from './event-log.ts';
export { pollingSettings } from './settings.ts';
export { eventLogOn, sealedCursors, wirePolling } from './wiring.ts';
