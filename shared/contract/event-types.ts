/**
 * The event types of a project's channels, as webhooks receive them and subscribe to them (docs/reference/events.md).
 * The one list: the API, the workers (through the events area) and the console all read it. Here, in the contract,
 * and free of imports, so the console's bundle takes only this array; the events area gives each type its schema.
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
