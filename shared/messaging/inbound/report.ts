import type { ProviderKind } from '../channel.ts';
import type { MediaReference } from '../media.ts';
import type { DeliveryStatusReport } from './dsn.ts';

/**
 * What an inbound function puts on the `inbound` queue once the provider's signature checked out: the provider's
 * raw report, untouched, so the worker (and a replay from the dead-letter queue) sees exactly what arrived.
 */
export interface InboundReport {
  v: 1;
  source: 'twilio' | 'whatsapp-cloud' | 'email';
  projectId: string;
  channelId: string;
  /** Epoch ms when the report was accepted. */
  receivedAt: number;
  /** The raw body as text (Twilio's form, Meta's JSON), when small enough to travel in the message. */
  body?: string;
  /** Else where it was parked: a key of the transfer bucket (always so for mail). */
  bodyRef?: string;
  /** Mail: what SES's receipt notification says of this delivery (see ./ses.ts). */
  ses?: SesReceipt;
  /** Mail: the envelope recipients that reached this channel (its mailbox, or its unsubscribe addresses). */
  recipients?: string[];
  /**
   * On the ordered lane: the contact whose message group carries this copy (normalised as the channel writes
   * addresses; `''` for what names no contact). Only that contact's items of the report are worked from it: a
   * callback naming several contacts is queued once for each. Absent: every item (a report queued before the lanes).
   */
  contact?: string;
}

/**
 * One received mail as SES delivered it: its SES message id, unique per delivery and the same on a redelivered
 * notification (the mail's identity for deduplication, never the sender-chosen `Message-ID`), and SES's verdicts
 * on its sender as {@link MailAuthentication}.
 */
export interface SesReceipt {
  messageId: string;
  authentication: MailAuthentication;
}

/** One sender check's result as `message.received` carries it. */
export type AuthenticationResult = 'pass' | 'fail' | 'none' | 'unknown';

/** SPF, DKIM and DMARC results of a received mail (`data.authentication`). */
export interface MailAuthentication {
  spf: AuthenticationResult;
  dkim: AuthenticationResult;
  dmarc: AuthenticationResult;
}

/** Reports above this travel by reference (SQS takes 256 KB per message). */
export const INLINE_REPORT_BYTES = 200 * 1024;

/** Key of a parked raw report in the transfer bucket (expires with the payloads). */
export function reportKey(source: InboundReport['source'], id: string): string {
  return `payloads/inbound/${source}/${id}`;
}

/** One thing a provider told us, normalised: a message from a contact, or news about a message we sent. */
export type NormalisedReport = ReceivedMessage | StatusReport | SuppressionReport;

/**
 * A provider's verdict that a recipient of a message this channel sent must not be mailed again (SES: a permanent
 * bounce, a complaint). Applied only to recipients of that message.
 */
export interface SuppressionReport {
  kind: 'suppression';
  provider: ProviderKind;
  providerMessageId: string;
  contacts: string[];
  reason: 'bounce' | 'complaint';
  /** ISO 8601, when the provider says it happened. */
  at: string;
}

export interface ReceivedMessage {
  kind: 'message';
  provider: ProviderKind;
  /** The provider's id of the message (Twilio's SID, WhatsApp's wamid, the mail's Message-ID). */
  providerMessageId: string;
  /**
   * What the transport guarantees to be one per delivery, when it is not `providerMessageId` (mail: the SES message
   * id, because a sender writes the Message-ID). The received message's identity; never in the event.
   */
  transportId?: string;
  from: string;
  to: string;
  text: string;
  contact?: { name: string };
  /** Media the message carries, as the provider names them; fetched and stored by the worker. */
  media?: MediaReference[];
  /** ISO 8601. */
  receivedAt: string;
  /**
   * Where the report stands in the order the service accepted reports (when it was accepted, then the message's place
   * in it): orders two changes of a contact's opt-out given the same provider time. Never in the event.
   */
  arrival?: string;
  /** Set when a part of the message was over its ceiling and was cut (mail: `MAIL_LIMITS`). */
  truncated?: true;
  email?: {
    subject: string;
    html?: string;
    cc?: string[];
    inReplyTo?: string;
    references?: string[];
    attachments: { fileName: string; contentType: string; bytes: number }[];
    /** What the receiving side checked of the sender (all `unknown` where nothing was checked). */
    authentication?: MailAuthentication;
    /** The mail is a delivery status notification: who bounced, and which mail. */
    deliveryStatus?: DeliveryStatusReport;
    /**
     * The domain of each DKIM signature the mail carries (`d=`; empty where it names none): with the receiving side's
     * DKIM verdict, whether a signature of the sender's own domain vouches for `From`. Never in the event.
     */
    signedBy?: string[];
    /** The addresses the mail was delivered to (the SMTP envelope, as SES received it) on this channel. Never in the event. */
    envelopeTo?: string[];
  };
}

export interface StatusReport {
  kind: 'status';
  provider: ProviderKind;
  providerMessageId: string;
  /** `ignored`: a provider status that changes nothing visible (sent, queued, sending, accepted...). */
  status: 'delivered' | 'read' | 'failed' | 'ignored';
  /** ISO 8601, when the provider says it happened (else when it reached us). */
  at: string;
  error?: string;
  /** Whom the message was sent to, as the provider writes it: the contact whose reports this one is ordered among. */
  recipient?: string;
}
