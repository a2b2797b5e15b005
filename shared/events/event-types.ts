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
  'webhook.test',
  'webhook.failing',
  'webhook.disabled',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Operational notices about a project's webhooks (contract §18): emitted by the service, never on a channel. */
export const NOTICE_EVENT_TYPES = [
  'webhook.failing',
  'webhook.disabled',
] as const satisfies readonly WebhookEventType[];

/** What a channel back end may report on `POST /projects/{p}/events`: every type but the service's own notices. */
export const REPORTABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter(
  (t): t is Exclude<WebhookEventType, (typeof NOTICE_EVENT_TYPES)[number]> =>
    !(NOTICE_EVENT_TYPES as readonly string[]).includes(t),
);
