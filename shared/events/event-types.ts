/**
 * The event types of a project's channels, as webhooks receive them and subscribe to them (contract section 5).
 * The one list: the API, the workers and the console (which bundles this file) all read it. Kept free of imports
 * so the console's bundle takes only this array.
 */
export const WEBHOOK_EVENT_TYPES = [
  'message.received',
  'message.sent',
  'message.delivered',
  'message.read',
  'message.failed',
  'contact.opted_out',
  'contact.opted_in',
  'webhook.test',
  'webhook.failing',
  'webhook.disabled',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Operational notices about a project's webhooks: emitted by the service, never on a channel. */
export const NOTICE_EVENT_TYPES = [
  'webhook.failing',
  'webhook.disabled',
] as const satisfies readonly WebhookEventType[];

/**
 * What a channel back end may report on `POST /projects/{p}/events`: message events and
 * `webhook.test`. Contact events follow a suppression this service keeps, and notices are about its webhooks: both
 * are the service's own.
 */
export const REPORTABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter(
  (t): t is Extract<WebhookEventType, `message.${string}` | 'webhook.test'> =>
    t.startsWith('message.') || t === 'webhook.test',
);
