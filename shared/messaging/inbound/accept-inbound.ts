import { randomBytes } from 'node:crypto';
import type { Channel } from '../channel.ts';
import { ChannelNotFoundError, InvalidSignatureError } from '../errors.ts';
import { type OrderedReport, orderedCopies } from './order.ts';
import { INLINE_REPORT_BYTES, reportKey, type InboundReport } from './report.ts';
import { sameBytes, twilioUrlSpellings, verifyMetaSignature, verifyTwilioSignatureOfAny } from './signatures.ts';

export interface AcceptInboundDeps {
  channels: { findById(channelId: string): Promise<Channel | undefined> };
  /** The ordered lane: each copy in its contact's message group (./order.ts). */
  queue: { send(copies: OrderedReport[]): Promise<void> };
  /** Where a report too large for a queue message is parked first (the transfer bucket). */
  parked: { put(key: string, body: Buffer): Promise<void> };
  /** The URL Twilio calls is this + the request's path and query (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  now?: () => number;
}

/**
 * The public inbound addresses: 1. the channel (one GetItem), 2. its provider's signature over
 * the raw request, in constant time, before anything is stored, 3. the raw report queued in its contact's order
 * (one SQS send; one per contact when a callback names several; a report over 200 KB is parked in S3 first) — only
 * then does the caller answer 2xx. The work happens in the worker.
 */
export function makeAcceptInbound(deps: AcceptInboundDeps) {
  const now = deps.now ?? Date.now;

  async function channelOf(channelId: string, kind: 'twilio' | 'whatsapp-cloud'): Promise<Channel> {
    const channel = /^ch_[a-z0-9]{1,64}$/.test(channelId) ? await deps.channels.findById(channelId) : undefined;
    if (!channel || channel.provider.kind !== kind) throw notThisProvider(channelId);
    return channel;
  }

  async function enqueue(channel: Channel, source: InboundReport['source'], raw: Buffer): Promise<void> {
    const report: InboundReport = {
      v: 1,
      source,
      projectId: channel.projectId,
      channelId: channel.channelId,
      receivedAt: now(),
    };
    if (raw.length <= INLINE_REPORT_BYTES) report.body = raw.toString('utf8');
    else {
      report.bodyRef = reportKey(source, `${report.receivedAt}-${randomBytes(12).toString('hex')}`);
      await deps.parked.put(report.bodyRef, raw);
    }
    await deps.queue.send(orderedCopies(report, channel, raw));
  }

  return {
    /**
     * `POST /inbound/twilio/{channelId}`: `path` as requested (`/inbound/twilio/ch_…`), `query` its decoded pairs
     * (what API Gateway passes). Twilio signed the URL as it requested it; API Gateway hands over the query decoded,
     * so the URL is checked as each common way of writing that query spells it (./signatures.ts).
     */
    async twilio(input: {
      channelId: string;
      path: string;
      query: [string, string][];
      rawBody: Buffer;
      signature?: string;
    }) {
      const channel = await channelOf(input.channelId, 'twilio');
      if (channel.provider.kind !== 'twilio') throw notThisProvider(input.channelId);
      const params = [...new URLSearchParams(input.rawBody.toString('utf8'))];
      const urls = twilioUrlSpellings(deps.publicBaseUrl + input.path, input.query);
      if (!verifyTwilioSignatureOfAny(channel.provider.authToken, urls, params, input.signature))
        throw new InvalidSignatureError();
      await enqueue(channel, 'twilio', input.rawBody);
    },

    /** `POST /inbound/whatsapp/{channelId}`. A channel without an `appSecret` cannot verify: every request is refused. */
    async whatsApp(input: { channelId: string; rawBody: Buffer; signature?: string }) {
      const channel = await channelOf(input.channelId, 'whatsapp-cloud');
      if (channel.provider.kind !== 'whatsapp-cloud') throw notThisProvider(input.channelId);
      const secret = channel.provider.appSecret;
      if (!secret || !verifyMetaSignature(secret, input.rawBody, input.signature)) throw new InvalidSignatureError();
      await enqueue(channel, 'whatsapp-cloud', input.rawBody);
    },

    /** `GET /inbound/whatsapp/{channelId}`: Meta's subscription check; the challenge to echo back. */
    async whatsAppSubscription(input: { channelId: string; mode?: string; verifyToken?: string; challenge?: string }) {
      const channel = await channelOf(input.channelId, 'whatsapp-cloud');
      if (channel.provider.kind !== 'whatsapp-cloud') throw notThisProvider(input.channelId);
      const expected = channel.provider.verifyToken;
      const given = input.verifyToken ?? '';
      const ok =
        input.mode === 'subscribe' &&
        input.challenge !== undefined &&
        expected !== undefined &&
        sameText(expected, given);
      if (!ok)
        throw new InvalidSignatureError("hub.mode must be subscribe and hub.verify_token the channel's verifyToken.");
      return input.challenge!;
    },
  };
}

export type AcceptInbound = ReturnType<typeof makeAcceptInbound>;

/** No channel with this id, or not one the path's provider serves (404 CHANNEL_NOT_FOUND). */
function notThisProvider(channelId: string): ChannelNotFoundError {
  return new ChannelNotFoundError(channelId, 'No channel of this provider has this id.');
}

function sameText(expected: string, given: string): boolean {
  return sameBytes(Buffer.from(expected), Buffer.from(given));
}
