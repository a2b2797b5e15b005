import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { partialBatchResponse, processEach, workerFunction } from '../../http/worker.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { InvocationMetrics } from '../../kernel/metrics.ts';
import type { makeDeliver } from '../deliver.ts';
import { isNoticeEmailJob } from '../notice-emails.ts';
import { isRecoverMessage, type RecoverFailedDeliveries } from '../recover.ts';
import type { NoticeEmailSender, ReceivedNoticeEmail } from '../send-notice-email.ts';

/**
 * A deliver worker's handler, for the `deliveries` queue (`deliver`) or the FIFO `deliveriesOrdered` one
 * (`deliver-ordered`). Three kinds of message share `deliveries`: delivery jobs, a recover too large for its request
 * (one page set per message, ../recover.ts) and notice emails; each kind runs beside the others. On the FIFO queue
 * each record carries its message group, which keeps one conversation's jobs of a batch in order.
 */
export function deliverWorkerHandler(
  observed: { logger: Logger; metrics: InvocationMetrics },
  useCases: {
    deliver: ReturnType<typeof makeDeliver>;
    noticeEmails: NoticeEmailSender;
    recover: RecoverFailedDeliveries;
  },
) {
  const { logger, metrics } = observed;
  const { deliver, noticeEmails, recover } = useCases;
  return workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => {
    const recovering: SQSRecord[] = [];
    const emails: ReceivedNoticeEmail[] = [];
    const jobs: SQSRecord[] = [];
    for (const r of event.Records) {
      const body = parseOrNull(r.body);
      if (isRecoverMessage(body)) recovering.push(r);
      else if (isNoticeEmailJob(body)) emails.push({ ...received(r), job: body });
      else jobs.push(r);
    }
    const [recoverFailed, emailsKept, failed] = await Promise.all([
      processEach(
        recovering,
        async (r) => void (await recover.resume(JSON.parse(r.body))),
        logger,
        'recover continuation (it will be received again)',
      ),
      noticeEmails.sendBatch(emails),
      deliver.deliverBatch(
        jobs.map((r) => ({
          ...received(r),
          body: r.body,
          ...(r.attributes.MessageGroupId ? { groupId: r.attributes.MessageGroupId } : {}),
        })),
      ),
    ]);
    return partialBatchResponse([...failed, ...recoverFailed, ...emailsKept]);
  });
}

function received(r: SQSRecord) {
  return {
    messageId: r.messageId,
    receiptHandle: r.receiptHandle,
    receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
  };
}

function parseOrNull(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}
