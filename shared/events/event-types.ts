import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../contract/event-types.ts';

/** The event types (the list itself is the contract's, which the console reads), and the groups the service uses. */
export { WEBHOOK_EVENT_TYPES, type WebhookEventType };

/**
 * Operational notices about a project's webhooks (docs/reference/webhooks.md, "Notices"): emitted by the service,
 * never on a channel.
 */
export const NOTICE_EVENT_TYPES = [
  'webhook.failing',
  'webhook.disabled',
] as const satisfies readonly WebhookEventType[];

/**
 * What a channel back end may report on `POST /projects/{p}/events` (docs/reference/events.md): message events and
 * `webhook.test`. Contact events follow a suppression this service keeps, and notices are about its webhooks: both
 * are the service's own.
 */
export const REPORTABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter(
  (t): t is Extract<WebhookEventType, `message.${string}` | 'webhook.test'> =>
    t.startsWith('message.') || t === 'webhook.test',
);
