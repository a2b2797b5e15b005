import { markOf } from '../../events/index.ts';
import { failpoint } from '../../kernel/failpoints.ts';
import type { Channel } from '../channel.ts';
import type { ApplyReportsDeps, ReportedEvent, SandboxStatusReport } from './apply-ports.ts';
import type { MarkedEvents } from './marked-events.ts';
import type { StatusReport } from './report.ts';

/**
 * A status report: it finds the message its provider id was sent as (the sandbox's names the message itself), moves
 * it forward with one conditional write carrying the `message.delivered` / `.read` / `.failed` mark, and publishes
 * only when the write applied (or, already applied, what is still marked).
 */
export function makeApplyStatus(
  deps: Pick<ApplyReportsDeps, 'statuses' | 'events' | 'log'> & { now: () => Date },
  marks: Pick<MarkedEvents, 'publishMarked' | 'republish'>,
) {
  return async function status(channel: Channel, report: StatusReport | SandboxStatusReport): Promise<ReportedEvent[]> {
    if (report.status === 'ignored') return [];
    const target =
      'messageId' in report
        ? { messageId: report.messageId, conversationId: report.conversationId }
        : await deps.statuses
            .findByProviderId(report.provider, report.providerMessageId, channel.channelId)
            .then((found) => (found?.projectId === channel.projectId ? found : undefined));
    const messageId = target?.messageId;
    if (!messageId) {
      deps.log.info('status for a provider id this channel never sent: dropped', {
        channelId: channel.channelId,
        providerMessageId: report.providerMessageId,
      });
      return [];
    }
    const type = `message.${report.status}` as const;
    const prepared = await deps.events.prepare(
      {
        type,
        projectId: channel.projectId,
        companyId: channel.companyId,
        channel: { id: channel.channelId, type: channel.type, address: channel.address },
        data: {
          messageId,
          ...(target.conversationId ? { conversationId: target.conversationId } : {}),
          providerMessageId: report.providerMessageId,
          status: report.status,
          at: report.at,
          ...(report.error === undefined ? {} : { error: report.error }),
        },
      },
      { key: `status:${messageId}:${report.status}`, at: deps.now() },
    );
    const changed = await deps.statuses.advance(
      messageId,
      { status: report.status, at: report.at, ...(report.error === undefined ? {} : { error: report.error }) },
      markOf(prepared),
    );
    failpoint('after-status-write');
    if (!changed) return marks.republish(messageId, type);
    await marks.publishMarked(messageId, prepared);
    return [{ id: prepared.envelope.id, type }];
  };
}
