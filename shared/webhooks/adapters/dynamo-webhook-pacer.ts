import type { WebhookPacer } from '../pacing.ts';
import { keys } from '../../contract/keys.ts';
import { applied, conditionalWrite, type DynamoTable, readItem, updateItem } from '../../kernel/aws/dynamo-table.ts';

/**
 * Webhook pacing in DynamoDB: one item per paced webhook and lane (`PACE#<projectId>#<integrationId>`, `#<lane>`
 * after the first) holding `next`, the
 * earliest start not yet reserved (epoch ms). A reservation is one conditional write, two when it guesses wrong:
 *  - idle (`next` <= now, or no item): the start is now, `next` := now + spacing;
 *  - busy (`next` > now): the start is `next`, `next` := `next` + spacing (the new value comes back with the write).
 * No read comes first, so any number of workers share the schedule without handing out one start twice.
 * `last` is the last admitted start: an admission is one conditional write (`last` <= now - spacing); a refused one
 * reads `last` (one strongly consistent read) to wait for its turn.
 */
export class DynamoWebhookPacer implements WebhookPacer {
  constructor(private readonly table: DynamoTable) {}

  async limitOf(projectId: string, integrationId: string): Promise<number | null> {
    const item = await readItem(this.table, keys.integration(projectId, integrationId), {
      ProjectionExpression: '#integration.rateLimitPerSecond',
      ExpressionAttributeNames: { '#integration': 'integration' },
    });
    const limit = (item?.integration as { rateLimitPerSecond?: unknown } | undefined)?.rateLimitPerSecond;
    return typeof limit === 'number' && limit > 0 ? limit : null;
  }

  async reserve(projectId: string, integrationId: string, spacingMs: number, now: number, lane = 0): Promise<number> {
    const key = keys.webhookPace(projectId, integrationId, lane);
    // Idle and busy can trade places between the two writes (another worker moved `next`): try again.
    for (let round = 0; ; round++) {
      const busy = await conditionalWrite(
        updateItem(this.table, {
          Key: key,
          UpdateExpression: 'SET #next = #next + :spacing, expiresAt = :exp',
          ConditionExpression: '#next > :now',
          ExpressionAttributeNames: { '#next': 'next' },
          ExpressionAttributeValues: { ':spacing': spacingMs, ':now': now, ':exp': expiresAt(now) },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      if (busy.applied) return (busy.output.Attributes?.next as number) - spacingMs;
      const idle = await applied(
        updateItem(this.table, {
          Key: key,
          UpdateExpression: 'SET #next = :next, expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(#next) OR #next <= :now',
          ExpressionAttributeNames: { '#next': 'next' },
          ExpressionAttributeValues: { ':next': now + spacingMs, ':now': now, ':exp': expiresAt(now) },
        }),
      );
      if (idle) return now;
      if (round >= 5) throw new Error('webhook pace: no reservation after 6 rounds of contention');
    }
  }

  admit(projectId: string, integrationId: string, spacingMs: number, now: number, lane = 0): Promise<boolean> {
    return applied(
      updateItem(this.table, {
        Key: keys.webhookPace(projectId, integrationId, lane),
        UpdateExpression: 'SET #last = :now, expiresAt = if_not_exists(expiresAt, :exp)',
        ConditionExpression: 'attribute_not_exists(#last) OR #last <= :earliest',
        ExpressionAttributeNames: { '#last': 'last' },
        ExpressionAttributeValues: { ':now': now, ':earliest': now - spacingMs, ':exp': expiresAt(now) },
      }),
    );
  }

  async lastAdmitted(projectId: string, integrationId: string, lane = 0): Promise<number | undefined> {
    const item = await readItem(this.table, keys.webhookPace(projectId, integrationId, lane), {
      ProjectionExpression: '#last',
      ExpressionAttributeNames: { '#last': 'last' },
    });
    return typeof item?.last === 'number' ? item.last : undefined;
  }
}

/** The item outlives any reservation it holds by a day; an idle webhook's item goes away. */
function expiresAt(now: number): number {
  return Math.ceil(now / 1000) + 86400;
}
