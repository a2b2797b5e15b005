import { parseBoundedJson } from '../../kernel/json-shape.ts';
import type { Channel } from '../channel.ts';
import type { ApplyReportsDeps, ReportedEvent } from './apply-ports.ts';
import { makeApplyReports } from './apply-reports.ts';
import { withArrival } from './opt-outs.ts';
import { isFor } from './order.ts';
import type { InboundReport, NormalisedReport, ReceivedMessage } from './report.ts';
import { withDelivery } from './ses.ts';
import { normaliseTwilio } from './twilio.ts';
import { normaliseWhatsApp } from './whatsapp.ts';

export interface ProcessInboundDeps extends ApplyReportsDeps {
  /** Channels by id alone (the inbound URL carries no project). */
  channels: { findById(channelId: string): Promise<Channel | undefined> };
  /** Raw reports parked in the transfer bucket (large bodies, every mail). */
  rawReports: { get(key: string): Promise<Buffer | undefined> };
  /** MIME → the received message (mailparser); `to` is the channel's address. */
  parseMail(raw: Buffer, to: string): Promise<ReceivedMessage>;
  /** What was dropped and why (never a secret, never a body). */
  log: {
    info(message: string, extra?: Record<string, unknown>): void;
    warn(message: string, extra?: Record<string, unknown>): void;
  };
}

/**
 * The `inbound` worker's use case: a queued raw report → message events on the channel.
 * 1. find the channel (gone, or not the provider of the report: dropped, logged);
 * 2. read the raw report (inline or parked in S3) and normalise it (unparsable: logged, nothing emitted);
 * 3. a received message is recorded once under an id derived from its identity (the provider's
 *    id, or for mail the SES message id), its `message.received` marked
 *    in the same write (a retry finds it there: no second event, unless its event was never published);
 * 4. a status finds the message its provider id was sent as, moves it forward with one conditional write carrying
 *    the `message.delivered` / `.read` / `.failed` mark, published only when the write applied (or still marked).
 * Returns the events published.
 */
export function makeProcessInbound(deps: ProcessInboundDeps) {
  const apply = makeApplyReports(deps);

  async function process(report: InboundReport): Promise<ReportedEvent[]> {
    const channel = await deps.channels.findById(report.channelId);
    const expected = report.source === 'email' ? undefined : report.source;
    if (!channel || channel.projectId !== report.projectId || (expected && channel.provider.kind !== expected)) {
      deps.log.info('inbound report for a channel that is gone: dropped', { channelId: report.channelId });
      return [];
    }
    const raw = report.body !== undefined ? Buffer.from(report.body, 'utf8') : await readParked(report);
    if (!raw) return [];
    const receivedAt = new Date(report.receivedAt).toISOString();
    let items: NormalisedReport[];
    try {
      items = await normalise(report, channel, raw, receivedAt);
    } catch (cause) {
      deps.log.warn('signed inbound report does not parse: nothing emitted', {
        channelId: channel.channelId,
        source: report.source,
        cause: String(cause),
      });
      return [];
    }
    return apply(
      channel,
      withArrival(
        items.filter((i) => isFor(report, channel, i)),
        report.receivedAt,
      ),
    );
  }

  async function readParked(report: InboundReport): Promise<Buffer | undefined> {
    const raw = report.bodyRef ? await deps.rawReports.get(report.bodyRef) : undefined;
    if (!raw) deps.log.warn('parked inbound report is missing: dropped', { key: report.bodyRef });
    return raw;
  }

  async function normalise(
    report: InboundReport,
    channel: Channel,
    raw: Buffer,
    receivedAt: string,
  ): Promise<NormalisedReport[]> {
    switch (report.source) {
      case 'twilio': {
        const fields = new URLSearchParams(raw.toString('utf8'));
        const account = fields.get('AccountSid');
        if (channel.provider.kind === 'twilio' && account && account !== channel.provider.accountSid)
          throw new Error('the report is for another Twilio account');
        const item = normaliseTwilio(fields, receivedAt);
        return item ? [item] : [];
      }
      case 'whatsapp-cloud': {
        const phoneNumberId = channel.provider.kind === 'whatsapp-cloud' ? channel.provider.phoneNumberId : '';
        return normaliseWhatsApp(parseBoundedJson(raw.toString('utf8')), phoneNumberId);
      }
      case 'email':
        return [withDelivery(await deps.parseMail(raw, channel.address), report)];
    }
  }

  return { process, apply };
}

export type ProcessInbound = ReturnType<typeof makeProcessInbound>;
