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

/** The raw body Meta posts for this content: one entry, one `messages` change, as Meta documents it. */
export function metaWebhookBody(content: MetaWebhookContent): Buffer {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const senders = [...new Set((content.messages ?? []).map((m) => m.from))];
  return Buffer.from(
    JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: {
                  display_phone_number: content.displayNumber ?? '15550000000',
                  phone_number_id: content.phoneNumberId,
                },
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
              },
            },
          ],
        },
      ],
    }),
  );
}

/** Meta's `X-Hub-Signature-256` over a raw body. */
export function metaSignature(appSecret: string, raw: Buffer): string {
  return `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
}
