import type { NormalisedReport } from './report.ts';

const TWILIO_STATUS: Record<string, 'delivered' | 'read' | 'failed'> = {
  delivered: 'delivered',
  read: 'read',
  undelivered: 'failed',
  failed: 'failed',
};

/**
 * A Twilio webhook (form fields, as posted) as what it means: an incoming SMS/MMS (`Body`, `NumMedia`, media
 * `MediaUrl<n>`/`MediaContentType<n>`) or a status callback for a message we sent (`MessageStatus`). Twilio gives
 * no event time: `receivedAt` (ISO 8601) stands in. Undefined when the fields are neither (nothing to emit).
 */
export function normaliseTwilio(fields: URLSearchParams, receivedAt: string): NormalisedReport | undefined {
  const sid = fields.get('MessageSid') ?? fields.get('SmsSid') ?? fields.get('SmsMessageSid');
  if (!sid) return undefined;
  const status = fields.get('MessageStatus') ?? fields.get('SmsStatus');
  const incoming = status === null || status === 'received' ? fields.has('Body') || fields.has('NumMedia') : false;
  if (incoming) {
    const count = Math.min(Number(fields.get('NumMedia') ?? 0) || 0, 10);
    const media: { contentType?: string; providerUrl: string }[] = [];
    for (let i = 0; i < count; i++) {
      const url = fields.get(`MediaUrl${i}`);
      if (!url) continue;
      const contentType = fields.get(`MediaContentType${i}`);
      media.push({ ...(contentType ? { contentType } : {}), providerUrl: url });
    }
    return {
      kind: 'message',
      provider: 'twilio',
      providerMessageId: sid,
      from: fields.get('From') ?? '',
      to: fields.get('To') ?? '',
      text: fields.get('Body') ?? '',
      ...(media.length ? { media } : {}),
      receivedAt,
    };
  }
  if (!status) return undefined;
  const mapped = TWILIO_STATUS[status];
  const code = fields.get('ErrorCode');
  const message = fields.get('ErrorMessage');
  const recipient = fields.get('To');
  return {
    kind: 'status',
    provider: 'twilio',
    providerMessageId: sid,
    status: mapped ?? 'ignored',
    at: receivedAt,
    ...(recipient ? { recipient } : {}),
    ...(mapped === 'failed'
      ? { error: [code ? `Twilio error ${code}` : `Twilio status ${status}`, message].filter(Boolean).join(': ') }
      : {}),
  };
}
