import { createHmac } from 'node:crypto';

/** What a test puts in a Meta (WhatsApp Cloud) webhook: text messages and message statuses. */
export interface MetaWebhookContent {
  phoneNumberId: string;
  displayNumber?: string;
  /** Text messages, in this order: sender and wamid (the text is the wamid). */
  messages?: { from: string; id: string }[];
  /** Statuses of messages sent: recipient, wamid, status. */
  statuses?: { recipient: string; id: string; status: string }[];
}

/** The business number a Meta webhook is about, and the WhatsApp Business Account it belongs to. */
export interface MetaNumber {
  phoneNumberId: string;
  displayNumber?: string;
  /** The entry's id (the account's); Meta sends it, the service does not read it. */
  accountId?: string;
}

/**
 * Meta's envelope around one change of `field: "messages"`: `value` (messages, statuses, contacts) with the
 * `messaging_product` and the number's `metadata` Meta adds to each.
 */
export function metaEnvelope(value: Record<string, unknown>, number: MetaNumber) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: number.accountId ?? 'WABA',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: number.displayNumber ?? '15550000000',
                phone_number_id: number.phoneNumberId,
              },
              ...value,
            },
          },
        ],
      },
    ],
  };
}

/** The raw body Meta posts for this content: one entry, one `messages` change, as Meta documents it. */
export function metaWebhookBody(content: MetaWebhookContent): Buffer {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const senders = [...new Set((content.messages ?? []).map((m) => m.from))];
  const value = {
    contacts: senders.map((wa_id) => ({ profile: { name: 'Ana' }, wa_id })),
    messages: (content.messages ?? []).map(({ from, id }) => ({
      from,
      id,
      timestamp,
      type: 'text',
      text: { body: id },
    })),
    statuses: (content.statuses ?? []).map(({ recipient, id, status }) => ({
      id,
      status,
      recipient_id: recipient,
      timestamp,
    })),
  };
  return Buffer.from(JSON.stringify(metaEnvelope(value, content)));
}

/** Meta's `X-Hub-Signature-256` over a raw body. */
export function metaSignature(appSecret: string, raw: Buffer): string {
  return `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
}

/** Posts a raw Meta webhook body to a WhatsApp Cloud channel's route, signed with its app secret as Meta signs it. */
export function sendMetaWebhook(
  baseUrl: string,
  channelId: string,
  appSecret: string,
  raw: Buffer,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${baseUrl}/inbound/whatsapp/${channelId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(appSecret, raw) },
    body: raw,
    ...(signal ? { signal } : {}),
  });
}
