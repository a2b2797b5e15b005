/**
 * Delivery status notifications (RFC 3464): the report a mail server sends back to a sender whose mail could not be
 * delivered, `multipart/report; report-type=delivery-status`. Read here from the raw mail (mailparser folds the
 * `message/delivery-status` part into the text), within the mail's own 25 MB ceiling.
 */

/** A recipient the report says failed for good (`Action: failed`, `Status: 5.x.x`): a hard bounce. */
export interface HardBounce {
  /** The `Final-Recipient` address (else the `Original-Recipient`), lowercased. */
  recipient: string;
  /** The `Original-Recipient` address, lowercased, when the report gives one: the address the sender wrote. */
  originalRecipient?: string;
  /** The enhanced status code (`5.1.1`). */
  status: string;
}

export interface DeliveryStatusReport {
  hardBounces: HardBounce[];
  /** The Message-ID of the mail that bounced (from the returned headers), as written, with its brackets. */
  originalMessageId?: string;
}

/** Recipients read from one report at most. */
const MAX_RECIPIENTS = 100;

/**
 * The hard bounces and the bounced mail's Message-ID of a DSN, or undefined when `contentType` (the mail's top-level
 * type, with its parameters) is not a delivery-status report.
 */
export function parseDeliveryStatus(
  raw: Buffer,
  contentType: { value: string; params: Record<string, string> } | undefined,
): DeliveryStatusReport | undefined {
  if (contentType?.value.toLowerCase() !== 'multipart/report') return undefined;
  const reportType = (contentType.params['report-type'] ?? '').toLowerCase();
  const boundary = contentType.params.boundary;
  if (!boundary || (reportType !== 'delivery-status' && reportType !== 'global-delivery-status')) return undefined;
  const text = raw.toString('latin1');
  const hardBounces: HardBounce[] = [];
  let originalMessageId: string | undefined;
  for (const part of text.split(`--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break;
    const split = /\r?\n\r?\n/.exec(part);
    if (!split) continue;
    const headers = fields(part.slice(0, split.index));
    const type = (headers.get('content-type') ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
    const body = part.slice(split.index + split[0].length);
    if (type === 'message/delivery-status' || type === 'message/global-delivery-status') {
      // Per-message fields, then one group of fields per recipient, separated by blank lines.
      for (const group of body.split(/\r?\n\s*\r?\n/).slice(1)) {
        if (hardBounces.length >= MAX_RECIPIENTS) break;
        const f = fields(group);
        const action = (f.get('action') ?? '').trim().toLowerCase();
        const status = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(f.get('status') ?? '')?.[1];
        const original = addressOf(f.get('original-recipient'));
        const recipient = addressOf(f.get('final-recipient')) ?? original;
        if (action === 'failed' && status?.startsWith('5.') && recipient)
          hardBounces.push({ recipient, status, ...(original ? { originalRecipient: original } : {}) });
      }
    } else if (type === 'text/rfc822-headers' || type === 'message/rfc822' || type === 'message/global-headers') {
      const end = /\r?\n\r?\n/.exec(body);
      const id = fields(end ? body.slice(0, end.index) : body).get('message-id');
      const bracketed = id ? /<[^<>\s]+>/.exec(id)?.[0] : undefined;
      if (bracketed) originalMessageId = bracketed;
    }
  }
  return { hardBounces, ...(originalMessageId ? { originalMessageId } : {}) };
}

/** Header-style fields (continuation lines unfolded), by lowercased name; the first of each name wins. */
function fields(block: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!out.has(name)) out.set(name, line.slice(colon + 1).trim());
  }
  return out;
}

/** `rfc822; someone@example.org` → `someone@example.org` (lowercased); other address types are not mail. */
function addressOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const [kind, address] = value.includes(';') ? value.split(';', 2) : ['rfc822', value];
  if (!/^(rfc822|utf-8)$/i.test(kind!.trim())) return undefined;
  const clean = address!.trim().replace(/^<|>$/g, '').toLowerCase();
  return /^[^\s@<>]+@[^\s@<>]+$/.test(clean) ? clean : undefined;
}
