import type { NormalisedReport, ReceivedMessage } from './report.ts';

const WHATSAPP_STATUS: Record<string, 'delivered' | 'read' | 'failed'> = {
  delivered: 'delivered',
  read: 'read',
  failed: 'failed',
};

/** Message types whose content is a media object (`{ id, mime_type, caption?, filename? }`). */
const MEDIA_TYPES = ['image', 'document', 'audio', 'video', 'sticker'] as const;

// biome-ignore lint/suspicious/noExplicitAny: Meta's JSON is untrusted and read defensively, field by field.
type Json = Record<string, any>;

/**
 * A WhatsApp Cloud webhook (Meta's JSON: `entry[].changes[].value` with `messages[]` and `statuses[]`) as what it
 * means, for the channel's phone number id only: values for other numbers of the same app are skipped.
 * Throws on JSON that is not a webhook at all (the caller logs it and emits nothing).
 */
export function normaliseWhatsApp(body: unknown, phoneNumberId: string): NormalisedReport[] {
  const root = body as Json;
  if (!root || typeof root !== 'object' || !Array.isArray(root.entry)) throw new Error('not a WhatsApp webhook');
  const out: NormalisedReport[] = [];
  for (const entry of root.entry as Json[]) {
    for (const change of (entry?.changes ?? []) as Json[]) {
      const value = change?.value as Json | undefined;
      if (change?.field !== 'messages' || !value) continue;
      if (String(value.metadata?.phone_number_id ?? '') !== phoneNumberId) continue;
      const to = String(value.metadata?.display_phone_number ?? '');
      const names = new Map<string, string>();
      for (const c of (value.contacts ?? []) as Json[])
        if (c?.wa_id && c.profile?.name) names.set(c.wa_id, c.profile.name);
      for (const m of (value.messages ?? []) as Json[]) {
        const message = whatsAppMessage(m, to, names);
        if (message) out.push(message);
      }
      for (const s of (value.statuses ?? []) as Json[]) {
        if (typeof s?.id !== 'string' || typeof s.status !== 'string') continue;
        const mapped = WHATSAPP_STATUS[s.status];
        const error = (s.errors as Json[] | undefined)?.[0];
        out.push({
          kind: 'status',
          provider: 'whatsapp-cloud',
          providerMessageId: s.id,
          status: mapped ?? 'ignored',
          at: unixTime(s.timestamp),
          ...(typeof s.recipient_id === 'string' ? { recipient: s.recipient_id } : {}),
          ...(mapped === 'failed'
            ? {
                error: error
                  ? `WhatsApp error ${error.code}: ${error.error_data?.details ?? error.message ?? error.title ?? ''}`.trim()
                  : 'WhatsApp reported the message failed',
              }
            : {}),
        });
      }
    }
  }
  return out;
}

function whatsAppMessage(m: Json, to: string, names: Map<string, string>): ReceivedMessage | undefined {
  if (typeof m?.id !== 'string' || typeof m.from !== 'string') return undefined;
  const type = String(m.type ?? '');
  const name = names.get(m.from);
  let text = '';
  const media: NonNullable<ReceivedMessage['media']> = [];
  if (type === 'text') text = String(m.text?.body ?? '');
  else if ((MEDIA_TYPES as readonly string[]).includes(type)) {
    const content = m[type] as Json | undefined;
    text = String(content?.caption ?? '');
    if (typeof content?.id === 'string')
      media.push({
        ...(typeof content.mime_type === 'string' ? { contentType: content.mime_type } : {}),
        providerMediaId: content.id,
        ...(typeof content.filename === 'string' ? { fileName: content.filename } : {}),
      });
  } else if (type === 'button') text = String(m.button?.text ?? '');
  else if (type === 'interactive')
    text = String(m.interactive?.button_reply?.title ?? m.interactive?.list_reply?.title ?? '');
  return {
    kind: 'message',
    provider: 'whatsapp-cloud',
    providerMessageId: m.id,
    from: m.from,
    to,
    text,
    ...(name ? { contact: { name } } : {}),
    ...(media.length ? { media } : {}),
    receivedAt: unixTime(m.timestamp),
  };
}

/** Meta's timestamps are Unix seconds as text. */
function unixTime(value: unknown): string {
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000).toISOString() : new Date().toISOString();
}
