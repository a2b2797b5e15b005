import { keys } from '../../contract/keys.ts';
import { applied, type DynamoTable, readItem, updateItem } from '../../kernel/aws/dynamo-table.ts';
import type { NoticeEmailClaim, NoticeEmailLog } from '../send-notice-email.ts';

/** Kept well past the last retry of a notice email and the queue's retention. */
const RETENTION_SECONDS = 30 * 86400;

/**
 * One small item per notice email (`NOTICEMAIL#<projectId>#<eventId>`), expired by the table's TTL: `claimedBy` and
 * `claimUntil` while a job sends it, `sentAt` once sent. Each step is one conditional UpdateItem.
 */
export class DynamoNoticeEmailLog implements NoticeEmailLog {
  constructor(private readonly table: DynamoTable) {}

  async claim(projectId: string, eventId: string, holder: string, now: number, leaseMs: number) {
    const claimed = await applied(
      updateItem(this.table, {
        Key: keys.noticeEmail(projectId, eventId),
        UpdateExpression: 'SET claimedBy = :holder, claimUntil = :until, expiresAt = :exp',
        ConditionExpression:
          'attribute_not_exists(sentAt) AND (attribute_not_exists(claimedBy) OR claimedBy = :holder OR claimUntil < :now)',
        ExpressionAttributeValues: {
          ':holder': holder,
          ':until': now + leaseMs,
          ':now': now,
          ':exp': Math.floor(now / 1000) + RETENTION_SECONDS,
        },
      }),
    );
    if (claimed) return 'mine' satisfies NoticeEmailClaim;
    const item = await readItem(this.table, keys.noticeEmail(projectId, eventId));
    return (item?.sentAt !== undefined ? 'sent' : 'another') satisfies NoticeEmailClaim;
  }

  async markSent(projectId: string, eventId: string, holder: string, at: number): Promise<void> {
    await updateItem(this.table, {
      Key: keys.noticeEmail(projectId, eventId),
      UpdateExpression: 'SET sentAt = :at, sentBy = :holder REMOVE claimUntil',
      ExpressionAttributeValues: { ':at': at, ':holder': holder },
    });
  }

  async release(projectId: string, eventId: string, holder: string): Promise<void> {
    await applied(
      updateItem(this.table, {
        Key: keys.noticeEmail(projectId, eventId),
        UpdateExpression: 'REMOVE claimedBy, claimUntil',
        ConditionExpression: 'claimedBy = :holder',
        ExpressionAttributeValues: { ':holder': holder },
      }),
    );
  }
}
