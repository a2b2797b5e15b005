/** Polling: every event of a project kept 7 days, read oldest first by `poller` integrations with a cursor. */
export { pollEventsDocs } from './api/events-route.ts';
export { pollingSettings } from './settings.ts';
export { eventLogOn, wirePolling } from './wiring.ts';
