import { createHash } from 'node:crypto';
import { simpleParser, type AddressObject } from 'mailparser';
import type { ReceivedMessage } from '../inbound/report.ts';
import { parseDeliveryStatus } from '../inbound/dsn.ts';
import { MAX_MEDIA_ITEMS } from '../media.ts';

/** Raw messages above this are not parsed (contract §10: up to 25 MB). */
export const MAX_MAIL_BYTES = 25 * 1024 * 1024;

/**
 * A raw MIME message (RFC 5322) as the received message of an email channel, with mailparser: charsets decoded,
 * the plain part as `text` (or the HTML as text when there is none), the HTML kept as sent (stored, never rendered
 * here), threading headers, attachment metadata (names, types and sizes) and the first ten attachments' bytes as media
 * (stored by the worker), and what a delivery status notification says bounced.
 * A mail without a Message-ID is identified by the digest of its bytes.
 */
export async function parseMail(raw: Buffer, to: string): Promise<ReceivedMessage> {
  if (raw.length > MAX_MAIL_BYTES) throw new Error('the message is larger than 25 MB');
  const mail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, keepCidLinks: true });
  const html = typeof mail.html === 'string' ? mail.html : undefined;
  const cc = addresses(mail.cc);
  const references = typeof mail.references === 'string' ? [mail.references] : mail.references;
  const deliveryStatus = parseDeliveryStatus(
    raw,
    mail.headers.get('content-type') as { value: string; params: Record<string, string> } | undefined,
  );
  // Attachments a person attached become media (the parts of a bounce report do not): the first ten, bytes and all.
  const media = mail.attachments
    .filter((a) => !/^(message\/|text\/rfc822-headers)/i.test(a.contentType))
    .slice(0, MAX_MEDIA_ITEMS)
    .map((a) => ({ contentType: a.contentType, ...(a.filename ? { fileName: a.filename } : {}), bytes: a.content }));
  return {
    kind: 'message',
    provider: 'smtp',
    providerMessageId: mail.messageId ?? `sha256:${createHash('sha256').update(raw).digest('hex')}`,
    from: mail.from?.value[0]?.address ?? '',
    to,
    text: (mail.text ?? (html ? htmlAsText(html) : '')).trimEnd(),
    receivedAt: (mail.date ?? new Date()).toISOString(),
    ...(media.length ? { media } : {}),
    email: {
      subject: mail.subject ?? '',
      ...(html === undefined ? {} : { html }),
      ...(cc.length ? { cc } : {}),
      ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
      ...(references?.length ? { references } : {}),
      attachments: mail.attachments.map((a) => ({
        fileName: a.filename ?? 'attachment',
        contentType: a.contentType,
        bytes: a.size,
      })),
      ...(deliveryStatus ? { deliveryStatus } : {}),
    },
  };
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((a) => a.value.map((v) => v.address).filter((x): x is string => Boolean(x)));
}

/** Text of an HTML body for `text`: tags dropped, entities of the common kind decoded, whitespace folded. */
function htmlAsText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/p>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .trim();
}
