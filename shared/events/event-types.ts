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
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
