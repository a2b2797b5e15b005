import { keys } from '../../contract/keys.ts';
import { type DynamoTable, putItem, readItem } from '../../kernel/aws/dynamo-table.ts';
import type { NoticeEmailLog } from '../send-notice-email.ts';

/** Kept well past the last retry of a notice email and the queue's retention. */
const RETENTION_SECONDS = 30 * 86400;

/** One small item per notice email sent (`NOTICEMAIL#<projectId>#<eventId>`), expired by the table's TTL. */
export class DynamoNoticeEmailLog implements NoticeEmailLog {
  constructor(private readonly table: DynamoTable) {}

  async wasSent(projectId: string, eventId: string): Promise<boolean> {
    return (await readItem(this.table, keys.noticeEmail(projectId, eventId))) !== undefined;
  }

  async markSent(projectId: string, eventId: string, at: number): Promise<void> {
    await putItem(this.table, {
      Item: {
        ...keys.noticeEmail(projectId, eventId),
        sentAt: at,
        expiresAt: Math.floor(at / 1000) + RETENTION_SECONDS,
      },
    });
  }
}
