import type { ProviderKind } from '../channel.ts';

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
}

/** Reports above this travel by reference (SQS takes 256 KB per message). */
export const INLINE_REPORT_BYTES = 200 * 1024;

/** Key of a parked raw report in the transfer bucket (expires with the payloads). */
export function reportKey(source: InboundReport['source'], id: string): string {
  return `payloads/inbound/${source}/${id}`;
}

/** One thing a provider told us, normalised: a message from a contact, or news about a message we sent. */
export type NormalisedReport = ReceivedMessage | StatusReport;

export interface ReceivedMessage {
  kind: 'message';
  provider: ProviderKind;
  /** The provider's id of the message (Twilio's SID, WhatsApp's wamid, the mail's Message-ID). */
  providerMessageId: string;
  from: string;
  to: string;
  text: string;
  contact?: { name: string };
  media?: { contentType: string; url?: string; providerMediaId?: string }[];
  /** ISO 8601. */
  receivedAt: string;
  /** Set when a part of the message was over its ceiling and was cut (contract §15; mail: `MAIL_LIMITS`). */
  truncated?: true;
  email?: {
    subject: string;
    html?: string;
    cc?: string[];
    inReplyTo?: string;
    references?: string[];
    attachments: { fileName: string; contentType: string; bytes: number }[];
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
}
