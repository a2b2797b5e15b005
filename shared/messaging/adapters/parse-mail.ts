import { createHash } from 'node:crypto';
import { simpleParser, type AddressObject } from 'mailparser';
import { htmlToText } from '../../kernel/html-text.ts';
import type { ReceivedMessage } from '../inbound/report.ts';
import { parseDeliveryStatus } from '../inbound/dsn.ts';
import { MAX_MEDIA_ITEMS } from '../media.ts';

/** Raw messages above this are not parsed (up to 25 MB). */
export const MAX_MAIL_BYTES = 25 * 1024 * 1024;

/**
 * Ceilings of one received mail's parts in its `message.received`: over them a part is cut and the
 * event says `truncated: true`. The HTML is kept as sent up to its ceiling (a newsletter with inline images can be
 * megabytes); the text, the plain part or the HTML read as text, up to a million characters (a book's worth); lists
 * of addresses, references and attachments up to 100 entries each.
 */
export const MAIL_LIMITS = {
  textChars: 1_000_000,
  htmlChars: 5_000_000,
  subjectChars: 2_000,
  listEntries: 100,
};

/**
 * A raw MIME message (RFC 5322) as the received message of an email channel, with mailparser: charsets decoded,
 * the plain part as `text` (or the HTML as text when there is none, ../../kernel/html-text.ts: one linear pass), the
 * HTML kept as sent (stored, never rendered here), threading headers, attachment metadata (names, types and sizes),
 * the first ten attachments' bytes as media (stored by the worker), and what a delivery status notification says
 * bounced. Parts over {@link MAIL_LIMITS} are cut and `truncated` set.
 * A mail without a Message-ID is identified by the digest of its bytes.
 */
export async function parseMail(raw: Buffer, to: string): Promise<ReceivedMessage> {
  if (raw.length > MAX_MAIL_BYTES) throw new Error('the message is larger than 25 MB');
  try {
    return await readMail(raw, to);
  } catch {
    // Accepted mail is never lost: MIME the parser refuses (a header block over its 2 MB ceiling,
    // say) still arrives, as its first headers with `truncated: true`.
    return parseMailHeaders(raw, to);
  }
}

async function readMail(raw: Buffer, to: string): Promise<ReceivedMessage> {
  // mailparser's own HTML-to-text (html-to-text, on htmlparser2's Parser) is quadratic in nesting and wraps lines:
  // the HTML is read as text here instead.
  const mail = await simpleParser(raw, {
    skipHtmlToText: true,
    skipImageLinks: true,
    skipTextToHtml: true,
    skipTextLinks: true,
    keepCidLinks: true,
  });
  const cut = new Cut();
  const html = typeof mail.html === 'string' ? cut.text(mail.html, MAIL_LIMITS.htmlChars) : undefined;
  const text = mail.text?.trim() ? cut.text(mail.text, MAIL_LIMITS.textChars) : html ? cut.html(html) : '';
  const cc = cut.list(addresses(mail.cc));
  const references = cut.list(typeof mail.references === 'string' ? [mail.references] : (mail.references ?? []));
  const attachments = cut.list(mail.attachments).map((a) => ({
    fileName: a.filename ?? 'attachment',
    contentType: a.contentType,
    bytes: a.size,
  }));
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
    text: text.trimEnd(),
    receivedAt: (mail.date ?? new Date()).toISOString(),
    ...(media.length ? { media } : {}),
    ...(cut.truncated ? { truncated: true as const } : {}),
    email: {
      subject: cut.text(mail.subject ?? '', MAIL_LIMITS.subjectChars),
      ...(html === undefined ? {} : { html }),
      ...(cc.length ? { cc } : {}),
      ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
      ...(references.length ? { references } : {}),
      attachments,
      ...(deliveryStatus ? { deliveryStatus } : {}),
      signedBy: dkimDomains(mail.headerLines),
    },
  };
}

/** DKIM signatures read from one mail at most (a real mail has one or two). */
const MAX_DKIM_SIGNATURES = 10;

/**
 * The domains of the mail's DKIM signatures (each `DKIM-Signature`'s `d=` tag, lowercased), as written: which of them
 * verified is the receiving side's verdict, not read here.
 */
function dkimDomains(lines: readonly { key: string; line: string }[]): string[] {
  const domains: string[] = [];
  for (const { key, line } of lines) {
    if (key !== 'dkim-signature') continue;
    if (domains.length >= MAX_DKIM_SIGNATURES) {
      // Signatures past the ceiling are not read: one unnamed stands for them, so none is taken as aligned unseen.
      domains.push('');
      break;
    }
    // A signature's tags fit in a few hundred characters; a longer header is read no further than this.
    const tags = line.slice(0, 8192).replace(/\r?\n[ \t]+/g, ' ');
    const d = /(?:^|[;:\s])d\s*=\s*([A-Za-z0-9.-]{1,253})\s*(?:;|$)/.exec(tags);
    domains.push(d ? d[1]!.toLowerCase().replace(/\.$/, '') : '');
  }
  return domains;
}

/** The header block is looked for within this many bytes. */
const HEADER_BYTES = 64 * 1024;

/**
 * A mail whose parsing failed or passed its time or memory ceiling (the parsing sandbox stopped it): its headers only
 * (sender, subject, threading), no text and no attachments, and `truncated: true`, so the accepted mail still arrives
 * as `message.received`. Reads at most the first 64 KB.
 */
export async function parseMailHeaders(raw: Buffer, to: string): Promise<ReceivedMessage> {
  const head = raw.subarray(0, HEADER_BYTES);
  const crlf = head.indexOf('\r\n\r\n');
  const lf = head.indexOf('\n\n');
  const end = [crlf, lf].filter((at) => at >= 0).sort((a, b) => a - b)[0] ?? head.length;
  // The header block alone, as a mail with an empty body.
  const headers = Buffer.concat([head.subarray(0, end), Buffer.from('\r\n\r\n')]);
  const message = await readMail(headers, to).catch(
    (): ReceivedMessage => ({
      kind: 'message',
      provider: 'smtp',
      providerMessageId: 'sha256:',
      from: '',
      to,
      text: '',
      receivedAt: new Date().toISOString(),
      email: { subject: '', attachments: [] },
    }),
  );
  const { html: _html, ...email } = message.email!;
  return {
    ...message,
    providerMessageId: message.providerMessageId.startsWith('sha256:')
      ? `sha256:${createHash('sha256').update(raw).digest('hex')}`
      : message.providerMessageId,
    text: '',
    truncated: true,
    email: { ...email, attachments: [] },
  };
}

/** Cuts parts to their ceilings and remembers whether any was cut. */
class Cut {
  truncated = false;

  text(value: string, max: number): string {
    if (value.length <= max) return value;
    this.truncated = true;
    return value.slice(0, max);
  }

  html(html: string): string {
    const read = htmlToText(html, { maxTextChars: MAIL_LIMITS.textChars });
    if (read.truncated) this.truncated = true;
    return read.text;
  }

  list<T>(values: T[]): T[] {
    if (values.length <= MAIL_LIMITS.listEntries) return values;
    this.truncated = true;
    return values.slice(0, MAIL_LIMITS.listEntries);
  }
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((a) => a.value.map((v) => v.address).filter((x): x is string => Boolean(x)));
}
